/**
 * The `--fallback` policy of `run`, `export` and `render`: a successful fetch refreshes the offline
 * copy; when the vault cannot be reached (exit 7 errors: no connection, 5xx, rate limit) the copy is
 * used instead, with a warning that gives its age, as long as it is no older than --fallback-max-age;
 * --fallback-only uses the copy alone. Authentication and permission errors never fall back: a vault
 * that answers "no" is obeyed.
 */
import { NotFoundError, UnreachableError } from '../errors.js'
import type { FallbackPolicy } from './fallback-request.js'
import type { CopiedSecret, CopyIdentity } from './fallback-store.js'

/** A duration for people: `3 d 4 h`, `2 h 5 min`, `40 s`. */
export function describeAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  const parts: [number, string][] = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor((seconds % 86_400) / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'min'],
    [seconds % 60, 's'],
  ]
  const first = parts.findIndex(([amount]) => amount > 0)
  if (first < 0) return '0 s'
  return parts
    .slice(first, first + 2)
    .filter(([amount]) => amount > 0)
    .map(([amount, unit]) => `${amount} ${unit}`)
    .join(' ')
}

/**
 * Fetches through `fetch` under the policy: refreshes the copy on success, uses the copy when the
 * vault is unreachable (or always, with --fallback-only).
 */
export async function fetchWithFallback<T extends CopiedSecret>(
  identity: CopyIdentity,
  policy: FallbackPolicy,
  fetch: () => Promise<T[]>,
): Promise<CopiedSecret[]> {
  const store = await import('./fallback-store.js')
  const keys = await import('./fallback-key.js')
  const now = policy.now ?? Date.now
  const useCopy = async (cause?: UnreachableError): Promise<CopiedSecret[]> => {
    const copy = await store.readCopy(identity, await keys.readFallbackKey(policy.env), policy.env)
    const where = `environment ${identity.environment ? `'${identity.environment}'` : '(default)'}`
    const refuse = (why: string) =>
      cause
        ? new UnreachableError(`${cause.message}; ${why}`, { hint: cause.hint, cause })
        : new NotFoundError(`--fallback-only: ${why}`, {
            hint: 'run once with --fallback while the vault is reachable',
          })
    if (!copy) throw refuse(`there is no offline copy of ${where}`)
    const age = now() - copy.savedAt
    if (age > policy.maxAgeMs) {
      throw refuse(
        `the offline copy of ${where} is ${describeAge(age)} old, older than --fallback-max-age (${describeAge(policy.maxAgeMs)})`,
      )
    }
    const reason = cause ? `the vault is unreachable (${cause.message}); ` : ''
    policy.warn(
      `${reason}using the offline copy of ${where} saved ${describeAge(age)} ago (${new Date(copy.savedAt).toISOString()})`,
    )
    return copy.secrets
  }
  if (policy.only) return useCopy()
  let secrets: T[]
  try {
    secrets = await fetch()
  } catch (error) {
    if (error instanceof UnreachableError) return useCopy(error)
    throw error
  }
  try {
    const key = await keys.ensureFallbackKey(policy.env)
    const copied = secrets.map(({ name, value, version }) => ({ name, value, version }))
    await store.writeCopy({ identity, savedAt: now(), secrets: copied }, key, policy.env)
  } catch (error) {
    policy.warn(`the offline copy could not be updated: ${(error as Error).message}`)
  }
  return secrets
}
