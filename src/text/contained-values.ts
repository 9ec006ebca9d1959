/**
 * Copies of one secret inside another: `DATABASE_URL=postgresql://app:s3cret@db/app` holds the value of
 * POSTGRES_PASSWORD, so rotating one without the other breaks the stack. A value counts as contained
 * when it is a substring of the other value, or equals the password of a URL's userinfo after
 * percent-decoding. Values shorter than minContainedLength are not compared (too many false matches).
 * Pure: callers decide which pairs are legitimate (a template that references the secret).
 */

/** Values shorter than this are not looked for inside others. */
export const minContainedLength = 8

const userinfoPattern = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#@]*)@/

/** The percent-decoded password of a URL's userinfo, or undefined (no URL, no password, bad escape). */
export function urlPassword(value: string): string | undefined {
  const userinfo = userinfoPattern.exec(value)?.[1]
  if (userinfo === undefined) return undefined
  const colon = userinfo.indexOf(':')
  if (colon === -1) return undefined
  try {
    return decodeURIComponent(userinfo.slice(colon + 1))
  } catch {
    return undefined
  }
}

/** Whether `container` holds `value` (substring, or its URL password). */
export function holdsValue(container: string, value: string): boolean {
  return container.includes(value) || urlPassword(container) === value
}

/**
 * The names (sorted) of the other entries of `values` that hold the value of `name`; empty when that
 * value is shorter than minContainedLength or absent. `allowed` names entries that may hold it.
 */
export function containersOf(
  values: Readonly<Record<string, string>>,
  name: string,
  allowed: ReadonlySet<string> = new Set(),
): string[] {
  const value = Object.hasOwn(values, name) ? values[name]! : ''
  if (value.length < minContainedLength) return []
  return Object.keys(values)
    .filter((other) => other !== name && !allowed.has(other) && holdsValue(values[other]!, value))
    .sort()
}
