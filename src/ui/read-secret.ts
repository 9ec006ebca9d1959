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
    options.warn(
      'Warning: --value puts the secret on the command line, where process listings and shell history show it',
    )
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

/** All of `stream` as text, less one trailing newline (a value piped with `echo`). */
export async function readPipedValue(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  return (await readAll(stream)).replace(/\r?\n$/, '')
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}
