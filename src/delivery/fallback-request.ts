/**
 * The light entry to `--fallback` for the commands and the secret layer: without the flags it costs
 * nothing (the store, the key and node:crypto are loaded only when a fallback is asked for). Every
 * reader of an environment (export, run, run --watch, render, inject) fetches here, so templates are
 * resolved here (src/client/resolve-templates.ts), before an offline copy is written.
 */
import { resolveTemplates } from '../client/resolve-templates.js'

export interface FallbackFlags {
  fallback?: boolean
  'fallback-max-age'?: string
  'fallback-only'?: boolean
}

/** The fallback flags of a command and where its warnings go. */
export interface FallbackRequest {
  flags: FallbackFlags
  warn: (line: string) => void
}

/**
 * The session options a fetch under `request` wants: with --fallback an unreachable vault (connection
 * refused, no route, a gateway's own 502/503/504) is not retried, so the offline copy is used at once
 * instead of after the retries' 3 s; a vault that answers slowly still gets its timeout.
 */
export function sessionOptionsFor(request: FallbackRequest | undefined): { retryUnreachable?: boolean } {
  return request?.flags.fallback || request?.flags['fallback-only'] ? { retryUnreachable: false } : {}
}

/** Whose secrets are fetched: the vault, the project (empty when the token decides) and the environment. */
export interface FetchTarget {
  domain?: string
  projectId?: string
  environment?: string
}

/** Fetches the secrets with templates resolved, through the offline copy when --fallback or --fallback-only asks for it. */
export async function fetchSecrets<T extends { name: string; value: string; version?: number }>(
  request: FallbackRequest | undefined,
  target: FetchTarget,
  fetch: () => Promise<T[]>,
): Promise<{ name: string; value: string }[]> {
  const resolved = async () => resolveTemplates(await fetch())
  if (!request || (!request.flags.fallback && !request.flags['fallback-only'])) return resolved()
  const { fallbackPolicy, fetchWithFallback } = await import('./fallback.js')
  const identity = {
    domain: target.domain ?? '',
    project: target.projectId ?? '',
    environment: target.environment ?? '',
  }
  return fetchWithFallback(identity, fallbackPolicy(request.flags, request.warn)!, resolved)
}
