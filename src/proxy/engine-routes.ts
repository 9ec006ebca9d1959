/**
 * Paths as the engine's own router reads them (pure), for the decisions that must match every path
 * the engine serves an answer for, not only the spellings rules are written for: Moby takes any
 * `/v{version:[0-9.]+}` prefix (`/v1.41./` is served), names of the form `{name:.*}` (slashes included:
 * a legacy link's alias `/containers/web/db/json` is the linked container), and libpod's paths beside
 * Docker's. Rule variables (variables.ts) are CetusGuard's narrower spellings and stay as they are.
 */

/** Moby's optional version prefix. */
const versionPrefix = String.raw`(?:/v[0-9.]+)?`

/** An object of a collection, named as the engine reads it (`.+`: slashes included). */
export const anyName = '.+'

/** Docker's or libpod's path of a container (`containers/{name}`), for use inside `enginePath`. */
export const anyContainer = String.raw`(?:/libpod)?/containers/${anyName}`

/**
 * A pattern for the paths the engine routes to `route` (written after the version prefix, starting
 * with `/`), with or without the version prefix and a trailing slash.
 */
export function enginePath(route: string): RegExp {
  return new RegExp(String.raw`^${versionPrefix}${route}/?$`)
}
