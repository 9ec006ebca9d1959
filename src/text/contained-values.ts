/**
 * Copies of one secret inside another: `DATABASE_URL=postgresql://app:s3cret@db/app` holds the value of
 * POSTGRES_PASSWORD, so rotating one without the other breaks the stack. A value counts as contained
 * when it is written inside the other value as a whole word (not a path's), equals the password of a
 * URL's userinfo after percent-decoding, or equals a secret-looking other value (holdsValue). Values
 * shorter than minContainedLength are not compared (too many false matches).
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

const secretSuffix = /(PASSWORD|SECRET|TOKEN|SALT|AUTH|KEY|(^|_)PASS|(^|_)PW)$/i

/** A value that names a file rather than holding a secret. */
function isPath(value: string): boolean {
  return value.startsWith('/') || value.startsWith('./') || value.startsWith('../')
}

/**
 * Whether a variable holds a secret by its name (ending in PASSWORD, SECRET, TOKEN, SALT, AUTH or KEY,
 * or in _PASS or _PW as in awesome-compose's POSTGRES_PW; not a path: a value starting with `/` or
 * `./`, a name ending in _FILE or _PATH) or by its value (a URL with a password).
 */
export function looksSecret(name: string, value: string): boolean {
  if (urlPassword(value) !== undefined) return true
  if (/_(FILE|PATH)$/i.test(name) || isPath(value)) return false
  return secretSuffix.test(name)
}

const wordCharacter = /[A-Za-z0-9]/

/** Whether `value` occurs in `container` with no letter or digit right before or after it. */
function embedded(container: string, value: string): boolean {
  for (let at = container.indexOf(value); at !== -1; at = container.indexOf(value, at + 1)) {
    const before = container[at - 1] ?? ''
    const after = container[at + value.length] ?? ''
    if (!wordCharacter.test(before) && !wordCharacter.test(after)) return true
  }
  return false
}

/**
 * Whether the entry `name` = `container` holds `value`: as its URL's password; written inside it as a
 * whole word (`somewordpress` does not hold `wordpress`), unless the entry is a path (`./postgres`);
 * or equal to it when the entry is itself secret-looking (a DB_USERNAME equal to the password is not a copy).
 */
export function holdsValue(name: string, container: string, value: string): boolean {
  if (value === '') return false
  if (urlPassword(container) === value) return true
  if (container === value) return looksSecret(name, container)
  return !isPath(container) && embedded(container, value)
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
    .filter((other) => other !== name && !allowed.has(other) && holdsValue(other, values[other]!, value))
    .sort()
}
