/**
 * `DEBUG=*` makes oclif print the command line (process.argv, the command's argv) through the `debug`
 * package. A secret given as a flag (`secrets set --value`, `--encryption-key`, a `--db-url` with a
 * password) must not appear there: every debug line is written with those values replaced by `***`,
 * in their raw form and in the quoted forms util.inspect and JSON give them.
 */
import createDebug from 'debug'
import { formatWithOptions, inspect } from 'node:util'

/** The flags whose value is a secret (or may hold one, like a database URL with its password). */
export const secretFlags = [
  '--value',
  '--admin-password',
  '--encryption-key',
  '--new-encryption-key',
  '--jwt-secret',
  '--db-url',
]

/** The values given to secret flags on this command line (`--value X` and `--value=X`). */
export function secretArguments(argv: readonly string[]): string[] {
  const values: string[] = []
  argv.forEach((arg, index) => {
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined]
    if (!secretFlags.includes(flag)) return
    const value = inline ?? argv[index + 1]
    if (value) values.push(value)
  })
  return values
}

/** `text` with each secret (and its escaped forms) replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const forms = secrets.flatMap((secret) => [
    secret,
    inspect(secret).slice(1, -1),
    JSON.stringify(secret).slice(1, -1),
  ])
  const sorted = [...new Set(forms)].filter((form) => form.length > 0).sort((a, b) => b.length - a.length)
  let result = text
  for (const form of sorted) result = result.split(form).join('***')
  return result
}

/** When DEBUG is set, routes every `debug` line through redactSecrets for the secrets of `argv`. */
export function redactDebugOutput(argv: readonly string[]): void {
  if (!process.env.DEBUG) return
  const secrets = secretArguments(argv)
  if (secrets.length === 0) return
  createDebug.log = (...args: unknown[]) => {
    process.stderr.write(
      `${redactSecrets(formatWithOptions(createDebug.inspectOpts ?? {}, ...args), secrets)}\n`,
    )
  }
}
