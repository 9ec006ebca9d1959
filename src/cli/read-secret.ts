/**
 * Where `vault secrets set` takes a value from: stdin when it is not a terminal, else a hidden
 * prompt; the command line only when `--value` is given explicitly (with a warning).
 */
import { UsageError } from '../errors.js'

export interface ReadSecretOptions {
  name: string
  /** The explicit `--value`, if any. */
  value?: string
  stdin?: NodeJS.ReadStream
  warn: (line: string) => void
}

/** The value to store; one trailing newline of piped input is dropped (`echo v | vault secrets set`). */
export async function readSecretValue(options: ReadSecretOptions): Promise<string> {
  if (options.value !== undefined) {
    warnCommandLineSecret('--value', options.warn)
    return options.value
  }
  const stdin = options.stdin ?? process.stdin
  if (!stdin.isTTY) return readPipedValue(stdin)
  const { password } = await import('@inquirer/prompts')
  const value = await password(
    { message: `value of ${options.name}`, mask: true },
    { output: process.stderr },
  )
  if (value === '') throw new UsageError('no value entered', { hint: 'type the value, or pipe it on stdin' })
  return value
}

/** The one warning for a secret given as a flag (`--value`, `--admin-password`): argv is not private. */
export function warnCommandLineSecret(flag: string, warn: (line: string) => void): void {
  warn(
    `Warning: ${flag} puts the secret on the command line, where process listings and shell history show it`,
  )
}

export interface DevAdminPasswordOptions {
  /** `--admin-password` (kept for compatibility; warned). */
  flag?: string
  /** `--admin-password-stdin`. */
  fromStdin: boolean
  env: NodeJS.ProcessEnv
  warn: (line: string) => void
}

/**
 * The admin password of `vault server --dev --init-project`: the flag (with the command-line warning),
 * else stdin with --admin-password-stdin, else VAULT_ADMIN_PASSWORD; undefined for a random one.
 */
export async function readDevAdminPassword(options: DevAdminPasswordOptions): Promise<string | undefined> {
  if (options.flag !== undefined) {
    warnCommandLineSecret('--admin-password', options.warn)
    return options.flag
  }
  if (options.fromStdin) {
    const password = await readPipedValue()
    if (password === '') throw new UsageError('no admin password on stdin (--admin-password-stdin)')
    return password
  }
  return options.env.VAULT_ADMIN_PASSWORD || undefined
}

/** All of `stream` as text, less one trailing newline (a value piped with `echo`). */
export async function readPipedValue(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  return (await readAll(stream)).replace(/\r?\n$/, '')
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}
