/**
 * The decoding of the vault's answers: every JSON body the CLI reads from a vault is checked here for
 * the shape it must have (objects where objects are expected, strings, integers, arrays of the right
 * items) and rebuilt from the known fields alone, and every secret name in it must follow the server's
 * own rule (src/text/secret-name.ts). The server is whatever VAULT_DOMAIN names, which a project
 * directory from elsewhere can set: a name is data, never syntax, so `NODE_OPTIONS=--require=x.js`,
 * `X;touch f;Y` or a name with terminal escapes ends the command with a VaultAnswerError (exit 8)
 * before anything is exported, written or started.
 */
import { IntegrityError } from '../errors.js'
import { isSecretName, secretNamePattern } from '../text/secret-name.js'
import { escapeField } from '../text/terminal-text.js'

/** The vault's answer is not one a vault gives (a wrong shape, a name outside the rule, too large, a redirect). */
export class VaultAnswerError extends IntegrityError {
  override name = 'VaultAnswerError'
  override readonly code: string = 'ERR_VAULT_ANSWER'
}

const hint =
  'nothing was used; check that VAULT_DOMAIN names your vault (a project directory can set it in .vault/credentials or .env)'

/** The name of a place in an answer for a message (the root is `the answer`). */
function shownPlace(where: string): string {
  return where === '' ? 'the answer' : where
}

/** A decoder: the value checked and rebuilt, or a VaultAnswerError naming `where` it failed. */
export type Decoder<T> = (value: unknown, where: string) => T

/** Text from the vault for a message: escaped for the terminal, cut to 80 characters. */
export function shownText(text: string): string {
  const cut = text.length > 80 ? `${text.slice(0, 80)}...` : text
  return escapeField(JSON.stringify(cut))
}

/** The error for an answer to `what` that is not what a vault answers. */
export function answerError(what: string, problem: string): VaultAnswerError {
  return new VaultAnswerError(`refusing the vault's answer to ${what}: ${problem}`, { hint })
}

function describe(value: unknown): string {
  if (value === undefined) return 'absent'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `the string ${shownText(value)}`
  return `${typeof value === 'object' ? 'an' : 'a'} ${typeof value}`
}

function wrong(where: string, expected: string, value: unknown): Error {
  return new AnswerShapeError(`${shownPlace(where)} is ${describe(value)}, not ${expected}`)
}

/** A shape failure before its request is known; decodeAnswer names the request (a VaultAnswerError). */
export class AnswerShapeError extends VaultAnswerError {
  override name = 'AnswerShapeError'
}

/** Decodes `body`, the answer to `what` (e.g. `GET secrets`), or throws a VaultAnswerError. */
export function decodeAnswer<T>(what: string, body: unknown, decoder: Decoder<T>): T {
  return decodeWith(body, '', decoder, (problem) => answerError(what, problem))
}

/** Decodes `value` (called `where`), throwing `refuse(problem)` when it does not fit. */
export function decodeWith<T>(
  value: unknown,
  where: string,
  decoder: Decoder<T>,
  refuse: (problem: string) => Error,
): T {
  try {
    return decoder(value, where)
  } catch (error) {
    if (error instanceof AnswerShapeError) throw refuse(error.message)
    throw error
  }
}

/** A plain object (not null, not an array). */
export function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw wrong(where, 'an object', value)
  return value as Record<string, unknown>
}

export function string(value: unknown, where: string): string {
  if (typeof value !== 'string') throw wrong(where, 'a string', value)
  return value
}

/** A string that is not empty (a token). */
export function nonEmptyString(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw wrong(where, 'a non-empty string', value)
  return value
}

/** A non-negative integer (a version, a schema number). */
export function count(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw wrong(where, 'a non-negative integer', value)
  return value
}

export function boolean(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw wrong(where, 'true or false', value)
  return value
}

/** One of the strings `values`. */
export function oneOf<T extends string>(values: readonly T[]): Decoder<T> {
  return (value, where) => {
    if (typeof value !== 'string' || !(values as readonly string[]).includes(value))
      throw wrong(where, `one of ${values.join(', ')}`, value)
    return value as T
  }
}

/** `decoder`, or undefined when the value is absent (undefined or null). */
export function optional<T>(decoder: Decoder<T>): Decoder<T | undefined> {
  return (value, where) => (value === undefined || value === null ? undefined : decoder(value, where))
}

/** An array whose every item `item` decodes. */
export function arrayOf<T>(item: Decoder<T>): Decoder<T[]> {
  return (value, where) => {
    if (!Array.isArray(value)) throw wrong(where, 'an array', value)
    return value.map((entry, index) => item(entry, `${where}[${index}]`))
  }
}

/** An object whose own field `field` decodes (the path names it). */
export function field<T>(
  record: Record<string, unknown>,
  name: string,
  decoder: Decoder<T>,
  where: string,
): T {
  return decoder(Object.hasOwn(record, name) ? record[name] : undefined, where ? `${where}.${name}` : name)
}

/** A secret name that follows the server's rule; anything else is refused, shown escaped. */
export function secretName(value: unknown, where: string): string {
  if (isSecretName(value)) return value
  if (typeof value !== 'string') throw wrong(where, 'a secret name', value)
  throw new AnswerShapeError(
    `${shownPlace(where)} is the string ${shownText(value)}, not a secret name (${secretNamePattern.source}, at most 256 characters)`,
  )
}

/** The refusal of a redirect (any 3xx): the CLI follows none, so nothing is sent where the answer points. */
export function redirectError(
  what: string,
  status: number,
  location: string | string[] | undefined,
): VaultAnswerError {
  const target = typeof location === 'string' ? ` to ${shownText(location)}` : ''
  return answerError(what, `a redirect (HTTP ${status})${target}; redirects are never followed`)
}

/** A list of items keyed by secret name, refusing a name given twice. */
export function uniqueNames<T extends { name: string }>(items: T[], where: string): T[] {
  const seen = new Set<string>()
  for (const item of items) {
    if (seen.has(item.name)) throw new AnswerShapeError(`${shownPlace(where)} names ${item.name} twice`)
    seen.add(item.name)
  }
  return items
}
