/**
 * The rule a secret name follows, in one place for the vault server (which refuses any other name) and
 * the CLI (which refuses any other name a server sends): UPPER_SNAKE_CASE, at most 256 characters. A
 * name that follows it is plain data everywhere the CLI puts one: an environment variable of a child
 * (no `=`), a shell word after `export` (no `;`, `$`, quotes, spaces), a terminal line (no escapes), a
 * key of a plain object (no `__proto__`).
 */

/** The pattern of a secret name, as the server's 400 `invalid_name` states it. */
export const secretNamePattern = /^[A-Z][A-Z0-9_]*$/

/** The longest secret name, in characters. */
export const maxSecretNameLength = 256

/** Whether `name` is a string that follows the rule. */
export function isSecretName(name: unknown): name is string {
  return typeof name === 'string' && name.length <= maxSecretNameLength && secretNamePattern.test(name)
}
