/**
 * The light entry to `--fallback` for the commands and the secret layer: the typed policy a command
 * builds from its flags once, before anything else runs (so a bad --fallback-max-age is a usage error
 * at start), and the fetch that honours it. Without a policy it costs nothing: the store, the key and
 * node:crypto are loaded only when a fallback is asked for. Every reader of an environment (export, run,
 * run --watch, render, inject) fetches here, so templates are resolved here
 * (src/client/resolve-templates.ts), before an offline copy is written.
 */
import { resolveTemplates } from '../client/resolve-templates.js'
import { UsageError } from '../errors.js'

/** How `run`, `export`, `render` and `inject` use the offline copy (src/delivery/fallback.ts). */
export interface FallbackPolicy {
  /** Use the copy alone, without contacting the vault (--fallback-only). */
  only: boolean
  /** The oldest copy that may be used (--fallback-max-age). */
  maxAgeMs: number
  warn: (line: string) => void
  env?: NodeJS.ProcessEnv
  now?: () => number
}

const units: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** Parses `90s`, `30m`, `12h`, `7d`, `2w` (a bare number is seconds). */
export function parseMaxAge(text: string): number {
  const match = /^\s*(\d+)\s*([smhdw]?)\s*$/i.exec(text)
  if (!match) {
    throw new UsageError(
      `--fallback-max-age must be a duration such as 12h or 7d, got ${JSON.stringify(text)}`,
    )
  }
  return Number(match[1]) * units[(match[2] || 's').toLowerCase()]!
}

/**
 * The session options a fetch under `policy` wants: with a fallback an unreachable vault (connection
 * refused, no route, a gateway's own 502/503/504) is not retried, so the offline copy is used at once
 * instead of after the retries' 3 s; a vault that answers slowly still gets its timeout.
 */
export function sessionOptionsFor(policy: FallbackPolicy | undefined): { retryUnreachable?: boolean } {
  return policy ? { retryUnreachable: false } : {}
}

/** Whose secrets are fetched: the vault, the project (empty when the token decides) and the environment. */
export interface FetchTarget {
  domain?: string
  projectId?: string
  environment?: string
}

/** Fetches the secrets with templates resolved, through the offline copy when a fallback policy is given. */
export async function fetchSecrets<
  T extends { name: string; value: string; version?: number; plain?: boolean },
>(
  policy: FallbackPolicy | undefined,
  target: FetchTarget,
  fetch: () => Promise<T[]>,
): Promise<{ name: string; value: string; plain?: boolean }[]> {
  const resolved = async () => resolveTemplates(await fetch())
  if (!policy) return resolved()
  const { fetchWithFallback } = await import('./fallback.js')
  const identity = {
    domain: target.domain ?? '',
    project: target.projectId ?? '',
    environment: target.environment ?? '',
  }
  return fetchWithFallback(identity, policy, resolved)
}
