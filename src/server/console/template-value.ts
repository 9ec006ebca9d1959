/**
 * Reveal of a template in the console: the template as written and its value resolved here, on the
 * server, from the same environment's current values (src/client/resolve-templates.ts, the resolver
 * every CLI reader uses). A reference to a missing secret, a cycle or a malformed template gives the
 * resolver's one-line message (names only), never a stack trace.
 */
import {
  resolveTemplates,
  templateReferences,
  TemplateError,
  TemplateSyntaxError,
  type StoredSecret,
} from '../../client/resolve-templates.js'
import type { InTransaction } from '../context.js'
import { listSecrets, type SecretScope } from '../secrets/secrets.js'

/** What the reveal page shows under the template: its value, or why it has none. */
export type ResolvedTemplate = { value: string } | { problem: string }

/** Resolves `template` (a version of `name`) against the environment's current values. */
export async function resolveForReveal(
  at: InTransaction<SecretScope>,
  name: string,
  template: string,
): Promise<ResolvedTemplate> {
  const current = await listSecrets(at, true)
  const self = { name, value: template, template: true }
  const byName = new Map([
    ...current.map(
      (secret) =>
        [
          secret.name,
          { name: secret.name, value: secret.value ?? '', template: secret.template === true },
        ] as const,
    ),
    [name, self] as const,
  ])
  try {
    return { value: resolveTemplates(reachable(byName, self)).at(0)!.value }
  } catch (error) {
    if (!(error instanceof TemplateError) && !(error instanceof TemplateSyntaxError)) throw error
    return { problem: error.hint ? `${error.message} (${error.hint})` : error.message }
  }
}

/** `start` first, then the secrets its template reaches (a broken template elsewhere does not matter). */
function reachable(byName: Map<string, StoredSecret>, start: StoredSecret): StoredSecret[] {
  const found = new Map([[start.name, start]])
  const queue = [start]
  while (queue.length > 0) {
    const secret = queue.pop()!
    if (!secret.template) continue
    for (const reference of templateReferences(secret.name, secret.value)) {
      const target = byName.get(reference)
      if (target && !found.has(reference)) {
        found.set(reference, target)
        queue.push(target)
      }
    }
  }
  return [...found.values()]
}
