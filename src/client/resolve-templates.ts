/**
 * Secret references: a secret stored as a template (`vault secrets set NAME --template`) holds
 * `${OTHER}` where another secret of the same environment goes (`$${` is a literal `${`; any other
 * `$` is itself), e.g. `postgresql://app:${POSTGRES_PASSWORD}@db:5432/app`. The server keeps templates
 * as written; every reader of the CLI resolves them here after fetching the environment, so a rotated
 * POSTGRES_PASSWORD changes DATABASE_URL everywhere at once. A reference to a missing secret or a cycle
 * is an IntegrityError (exit 8) naming the chain (`A -> B -> A`); errors name secrets, never values.
 */
import { IntegrityError, UsageError } from '../errors.js'

/** A secret as fetched: a template when `template` is true. */
export interface StoredSecret {
  name: string
  value: string
  template?: boolean
}

/** One piece of a template: literal text or the name of a referenced secret. */
type Part = { text: string } | { reference: string }

/** A resolved value may not grow past this (`${A}${A}` chains double at each step). */
export const maxResolvedLength = 1024 * 1024

const namePattern = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The stored secrets of one environment reference each other in a way that cannot be resolved. */
export class TemplateError extends IntegrityError {
  override name = 'TemplateError'
  override readonly code: string = 'ERR_TEMPLATE'
}

/** A template's text is malformed (`${` without a name and `}`). */
export class TemplateSyntaxError extends UsageError {
  override name = 'TemplateSyntaxError'
  override readonly code: string = 'ERR_TEMPLATE_SYNTAX'
}

/** Splits a template into literal text and references; throws TemplateSyntaxError naming `name`. */
export function parseTemplate(name: string, template: string): Part[] {
  const parts: Part[] = []
  let literal = ''
  let index = 0
  while (index < template.length) {
    const dollar = template.indexOf('$', index)
    if (dollar === -1) {
      literal += template.slice(index)
      break
    }
    literal += template.slice(index, dollar)
    if (template.startsWith('$${', dollar)) {
      literal += '${'
      index = dollar + 3
    } else if (template.startsWith('${', dollar)) {
      const close = template.indexOf('}', dollar + 2)
      const reference = close === -1 ? '' : template.slice(dollar + 2, close)
      if (!namePattern.test(reference)) {
        throw new TemplateSyntaxError(
          `the template of ${name} has a malformed reference at character ${dollar + 1}: write \${NAME} for another secret, $\${ for a literal \${`,
        )
      }
      if (literal) parts.push({ text: literal })
      literal = ''
      parts.push({ reference })
      index = close + 1
    } else {
      literal += '$'
      index = dollar + 1
    }
  }
  if (literal) parts.push({ text: literal })
  return parts
}

/** The names a template references, in order, each once. */
export function templateReferences(name: string, template: string): string[] {
  const names = parseTemplate(name, template).flatMap((part) => ('reference' in part ? [part.reference] : []))
  return [...new Set(names)]
}

/**
 * The secrets with every template replaced by its resolved value (other fields kept, `template`
 * included). Iterative, so a chain of ten thousand templates resolves without deep recursion; each
 * template is resolved once.
 */
export function resolveTemplates<T extends StoredSecret>(secrets: readonly T[]): T[] {
  if (!secrets.some((secret) => secret.template)) return [...secrets]
  const byName = new Map<string, T>(secrets.map((secret) => [secret.name, secret]))
  const resolved = new Map<string, string>()
  const parsed = new Map<string, Part[]>()
  const partsOf = (secret: T) => {
    let parts = parsed.get(secret.name)
    if (!parts) parsed.set(secret.name, (parts = parseTemplate(secret.name, secret.value)))
    return parts
  }
  for (const start of secrets) {
    if (!start.template || resolved.has(start.name)) continue
    const stack: { name: string; parts: Part[]; next: number; out: string }[] = [
      { name: start.name, parts: partsOf(start), next: 0, out: '' },
    ]
    const open = new Set<string>([start.name])
    while (stack.length > 0) {
      const frame = stack.at(-1)!
      if (frame.next === frame.parts.length) {
        stack.pop()
        open.delete(frame.name)
        resolved.set(frame.name, frame.out)
        if (stack.length > 0) append(stack.at(-1)!, frame.out)
        continue
      }
      const part = frame.parts[frame.next++]!
      if ('text' in part) {
        append(frame, part.text)
        continue
      }
      const chain = () => [...stack.map((entry) => entry.name), part.reference].join(' -> ')
      const target = byName.get(part.reference)
      if (!target) {
        throw new TemplateError(`${chain()}: ${part.reference} is not a secret of this environment`, {
          hint: `set ${part.reference}, or change the template of ${frame.name} (vault secrets set ${frame.name} --template)`,
        })
      }
      if (!target.template) append(frame, target.value)
      else if (resolved.has(target.name)) append(frame, resolved.get(target.name)!)
      else if (open.has(target.name)) {
        const names = stack.map((entry) => entry.name)
        const cycle = [...names.slice(names.indexOf(target.name)), target.name].join(' -> ')
        throw new TemplateError(`the secret references form a cycle: ${cycle}`, {
          hint: `store one of them as a plain value (vault secrets set NAME without --template)`,
        })
      } else {
        open.add(target.name)
        stack.push({ name: target.name, parts: partsOf(target), next: 0, out: '' })
      }
    }
  }
  return secrets.map((secret) =>
    secret.template ? { ...secret, value: resolved.get(secret.name)! } : secret,
  )

  function append(frame: { name: string; out: string }, text: string): void {
    if (frame.out.length + text.length > maxResolvedLength) {
      throw new TemplateError(
        `the template of ${frame.name} resolves to more than ${maxResolvedLength} characters`,
      )
    }
    frame.out += text
  }
}

/**
 * Checks a template about to be stored as `name` against the environment's other secrets: every
 * reference exists and none leads back to `name`. Throws TemplateSyntaxError (exit 2), or a UsageError
 * (exit 2) naming the chain: nothing is stored then.
 */
export function checkNewTemplate(existing: readonly StoredSecret[], name: string, template: string): void {
  const others = existing.filter((secret) => secret.name !== name)
  try {
    resolveTemplates([{ name, value: template, template: true }, ...others])
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error
    throw new UsageError(`not stored: ${error.message}`, { hint: error.hint })
  }
}

/**
 * The templates whose resolved value changes when `name` changes: those naming it, and those naming
 * one of them, sorted. A template that cannot be parsed counts as naming nothing.
 */
export function dependentTemplates(secrets: readonly StoredSecret[], name: string): string[] {
  const namedBy = new Map<string, string[]>()
  for (const secret of secrets) {
    if (!secret.template) continue
    let references: string[]
    try {
      references = templateReferences(secret.name, secret.value)
    } catch {
      continue
    }
    for (const reference of references)
      namedBy.set(reference, [...(namedBy.get(reference) ?? []), secret.name])
  }
  const found = new Set<string>()
  const queue = [name]
  while (queue.length > 0) {
    for (const user of namedBy.get(queue.pop()!) ?? []) {
      if (user === name || found.has(user)) continue
      found.add(user)
      queue.push(user)
    }
  }
  return [...found].sort()
}

/** The environment's values by name, templates resolved; `overrides` replace stored values first. */
export function resolvedValues(
  secrets: readonly StoredSecret[],
  overrides: Record<string, string> = {},
): Record<string, string> {
  const replaced = secrets.map((secret) =>
    Object.hasOwn(overrides, secret.name)
      ? { ...secret, value: overrides[secret.name]!, template: false }
      : secret,
  )
  return Object.fromEntries(resolveTemplates(replaced).map((secret) => [secret.name, secret.value]))
}
