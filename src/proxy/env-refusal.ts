/**
 * Requests a masking rule set refuses (pure): answers that would show a container's environment in a
 * shape the proxy cannot mask. `GET /containers/{id}/top?ps_args=e` runs `ps e` on the engine's host,
 * which prints each process's environment after its command line; any `ps_args` is refused, as `ps`
 * options are many and differ between implementations (`docker top NAME` without options still works).
 */

/** Moby's route for container top (`/v{version:[0-9.]+}`, `{name:.*}`), and libpod's. */
const containerTopPath = /^(?:\/v[0-9.]+)?(?:\/libpod)?\/containers\/.+\/top\/?$/

/** The query's keys as the engine (Go's url.ParseQuery) decodes them; undefined for a bad escape. */
function queryKeys(query: string): string[] | undefined {
  const keys: string[] = []
  for (const pair of query.replace(/^\?/, '').split('&')) {
    const equals = pair.indexOf('=')
    const rawKey = equals === -1 ? pair : pair.slice(0, equals)
    const value = equals === -1 ? '' : pair.slice(equals + 1)
    if (value === '') continue
    try {
      keys.push(decodeURIComponent(rawKey.replaceAll('+', ' ')))
    } catch {
      return undefined
    }
  }
  return keys
}

/**
 * Why a rule set that masks the environment refuses this allowed request, or undefined: `query` is the
 * raw query (`?a=b` or empty).
 */
export function environmentRefusal(method: string, canonicalPath: string, query: string): string | undefined {
  if (method !== 'GET' || !containerTopPath.test(canonicalPath) || query === '') return undefined
  const keys = queryKeys(query)
  if (keys !== undefined && !keys.includes('ps_args')) return undefined
  return 'ps_args can make ps print the environment of container processes (ps e), which is masked here'
}
