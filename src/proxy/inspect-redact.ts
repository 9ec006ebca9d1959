/**
 * Secrets stay inside containers (pure): an answer that carries container environment is collected up
 * to a size cap and forwarded with every value replaced, `NAME=********`: container inspect
 * (`GET /containers/{id}/json`, Docker or libpod, `Config.Env`), image inspect (`GET /images/{name}/json`:
 * an image committed from a container holds its environment), swarm services and tasks
 * (`GET /services`, `/services/{id}`, `/tasks`, `/tasks/{id}`: `ContainerSpec.Env`, also in
 * `PreviousSpec`) and plugins (`GET /plugins`, `/plugins/{name}/json`: `Settings.Env`, and the `Value` of
 * each `Config.Env` entry). The same values are masked wherever they occur in the answer's command
 * lines (`Args`, `Cmd`, a healthcheck's `Test`, ...: see commandLineFields). Driver options are masked
 * too, in those answers and in volumes (`GET /volumes`, `/volumes/{name}`): log and volume drivers take
 * credentials there (driverOptionMaps). An answer that cannot be
 * masked (too large, compressed, not JSON) is never forwarded: the client gets a clear 502 instead, never
 * a truncated or unmasked body. Other answers are not touched here and keep streaming.
 */

import { maskText, valueRedactor } from '../text/mask-text.js'
import { anyContainer, anyName, enginePath } from './engine-routes.js'

/** The largest answer that is masked (a real inspect is a few tens of kB). */
export const maxInspectBodyBytes = 1 << 20

/** Every path the engine routes to container inspect (engine-routes.ts: any version, any name). */
const containerInspectPath = enginePath(`${anyContainer}/json`)

/** Image inspect (`/images/{name:.*}/json`): an image committed from a container holds its `Config.Env`. */
const imageInspectPath = enginePath(`(?:/libpod)?/images/${anyName}/json`)

/** Swarm services and tasks (`/services/{id}`, `/tasks/{id}`) and plugins (`/plugins/{name:.*}/json`). */
const swarmOrPluginPath = enginePath(`(?:/(?:services|tasks)(?:/[^/]+)?|/plugins(?:/${anyName}/json)?)`)

/**
 * Volumes (`/volumes`, `/volumes/{name:.*}`; libpod's `/libpod/volumes/json`, `/libpod/volumes/{name}/json`):
 * a volume's driver options hold the credentials of a network share (`o=username=u,password=...`).
 */
const volumePath = enginePath(`(?:/volumes(?:/${anyName})?|/libpod/volumes/(?:json|${anyName}/json))`)

/**
 * True for a request whose answer carries container environment or driver options (see the module
 * comment).
 */
export function carriesEnvironment(method: string, canonicalPath: string): boolean {
  return (
    method === 'GET' &&
    (containerInspectPath.test(canonicalPath) ||
      imageInspectPath.test(canonicalPath) ||
      swarmOrPluginPath.test(canonicalPath) ||
      volumePath.test(canonicalPath))
  )
}

/** True when this answer must have its environment masked: a successful GET of one of those answers. */
export function needsEnvMasking(method: string, canonicalPath: string, status: number): boolean {
  return status === 200 && carriesEnvironment(method, canonicalPath)
}

/** A container's process list (`GET /containers/{id}/top`, Docker or libpod). */
const containerTopPath = enginePath(`${anyContainer}/top`)

/** True for a request for a container's process list (see needsProcessListMasking). */
function asksForProcessList(method: string, canonicalPath: string): boolean {
  return method === 'GET' && containerTopPath.test(canonicalPath)
}

/**
 * True when this answer is a container's process list, whose command lines are masked with the
 * container's environment values (createProcessListMasker).
 */
export function needsProcessListMasking(method: string, canonicalPath: string, status: number): boolean {
  return status === 200 && asksForProcessList(method, canonicalPath)
}

/** True for a request whose answer is held whole to be masked (an inspect, a process list). */
export function answerIsHeld(method: string, canonicalPath: string): boolean {
  return carriesEnvironment(method, canonicalPath) || asksForProcessList(method, canonicalPath)
}

/**
 * True for a request whose answer a masking rule set masks: one carrying container environment, a
 * container's process list, its logs or the event stream. With an upgrade such an answer would be
 * relayed raw, so it is refused.
 */
export function answerIsMasked(method: string, canonicalPath: string): boolean {
  return (
    carriesEnvironment(method, canonicalPath) ||
    asksForProcessList(method, canonicalPath) ||
    needsLogMasking(method, canonicalPath, 200) ||
    needsEventMasking(method, canonicalPath, 200)
  )
}

/** The request target of the inspect of the container whose process list or logs `target` asks for. */
export function inspectTargetOf(target: string): string {
  return target.replace(/\?.*$/s, '').replace(/\/(?:top|logs)\/*$/, '/json')
}

/** A container's logs (`GET /containers/{id}/logs`, Docker or libpod). */
const containerLogsPath = enginePath(`${anyContainer}/logs`)

/** True when this answer is a container's logs, masked as a stream (stream-mask.ts). */
export function needsLogMasking(method: string, canonicalPath: string, status: number): boolean {
  return status === 200 && method === 'GET' && containerLogsPath.test(canonicalPath)
}

/** The engine's event stream (`GET /events`, Docker or libpod). */
const eventsPath = enginePath('(?:/libpod)?/events')

/** True when this answer is the event stream, masked event by event (events-mask.ts). */
export function needsEventMasking(method: string, canonicalPath: string, status: number): boolean {
  return status === 200 && method === 'GET' && eventsPath.test(canonicalPath)
}

/** The outcome of masking: the answer's new body (the caller frames it), or the error to send instead. */
export type MaskedAnswer = { ok: true; body: Buffer } | { ok: false; status: 502; message: string }

/** Collects one answer's body and masks it at the end. */
export interface InspectMasker {
  /** Adds a body chunk; false once the cap is passed (stop reading: `finish` reports the error). */
  push(chunk: Buffer): boolean
  finish(): MaskedAnswer
}

function headerValue(rawHeaders: readonly string[], lowerCaseName: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === lowerCaseName) return rawHeaders[i + 1]
  return undefined
}

/** `JSON.rawJSON` (Node 21+), not yet in TypeScript's lib. */
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON

/** Keeps integers beyond 2^53 exactly as the engine wrote them. */
function keepExactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? ''))
    return rawJson(context!.source!)
  return value
}

/** `NAME=********` for `NAME=value`; a plugin's `{Name, Value}` entry with its Value masked. */
function maskEntry(entry: unknown): unknown {
  if (typeof entry === 'string') {
    const equals = entry.indexOf('=')
    return equals === -1 ? entry : `${entry.slice(0, equals)}=${maskText}`
  }
  if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
    const masked = { ...(entry as Record<string, unknown>) }
    if ('Value' in masked) masked.Value = maskText
    return masked
  }
  return maskText
}

/**
 * Fields that hold a command line, where a secret passed on it shows as plainly as in `Env`: container
 * inspect's `Path` and `Args`, `Cmd` and `Entrypoint` (container and image config), a healthcheck's `Test`
 * (compose interpolates `-p${MYSQL_ROOT_PASSWORD}` into it), libpod's `CreateCommand` (the
 * `podman run -e NAME=value ...` that made the container), and a swarm ContainerSpec's `Command` and `Args`.
 */
const commandLineFields: ReadonlySet<string> = new Set([
  'Path',
  'Args',
  'Cmd',
  'Entrypoint',
  'Test',
  'CreateCommand',
  'Command',
])

/**
 * Variables the engine or the runtime sets in every container, never secrets: their values (`podman`,
 * `/root`, the hostname) are not masked in command lines, where they are common words (`Env` still
 * shows them masked).
 */
const runtimeVariables: ReadonlySet<string> = new Set(['PATH', 'HOME', 'HOSTNAME', 'TERM', 'container'])

/**
 * The value of one `Env` entry that may be a secret: after the `=` of `NAME=value` (not of a
 * runtimeVariables name), or a plugin entry's `Value`.
 */
function entryValue(entry: unknown): string | undefined {
  if (typeof entry === 'string') {
    const equals = entry.indexOf('=')
    if (equals === -1 || runtimeVariables.has(entry.slice(0, equals))) return undefined
    return entry.slice(equals + 1)
  }
  if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
    const value = (entry as Record<string, unknown>).Value
    return typeof value === 'string' ? value : undefined
  }
  return undefined
}

/**
 * The build arguments at the head of a command line the classic builder recorded for a `RUN` step
 * (an image's `ContainerConfig.Cmd`): `["|2", "TOKEN=value", "USER=me", "/bin/sh", "-c", ...]`, the
 * count and then that many `NAME=value` words. The words as indexes into `words` (none when the line
 * does not start that way). Their values are in no container's environment, so they are masked by shape.
 */
function buildArgumentWords(words: readonly unknown[]): number[] {
  const count = typeof words[0] === 'string' ? /^\|([0-9]{1,4})$/.exec(words[0]) : null
  if (!count) return []
  const indexes: number[] = []
  for (let i = 1; i <= Number(count[1]) && i < words.length; i++) indexes.push(i)
  return indexes
}

/** The values of every `Env` list anywhere in `node`, and of the build arguments in its command lines. */
function environmentValues(node: unknown, values: string[] = []): string[] {
  if (node === null || typeof node !== 'object') return values
  for (const [key, value] of Object.entries(node)) {
    if (key === 'Env' && Array.isArray(value)) {
      for (const entry of value) {
        const found = entryValue(entry)
        if (found !== undefined) values.push(found)
      }
    } else if (commandLineFields.has(key) && Array.isArray(value)) {
      for (const index of buildArgumentWords(value)) {
        const found = entryValue(value[index])
        if (found !== undefined) values.push(found)
      }
    } else environmentValues(value, values)
  }
  return values
}

/** A command line with its build arguments' values masked (buildArgumentWords) and `redact` applied. */
function maskCommandLine(words: readonly unknown[], redact: (text: string) => string): unknown[] {
  const buildArguments = new Set(buildArgumentWords(words))
  return words.map((word, index) =>
    buildArguments.has(index) ? maskEntry(word) : typeof word === 'string' ? redact(word) : word,
  )
}

/**
 * Driver options, where credentials go: a log driver's (`--log-opt splunk-token=...`, a `loki-url` with a
 * password: a container's `HostConfig.LogConfig.Config`, a service's `TaskTemplate.LogDriver.Options`)
 * and a volume driver's (a CIFS share's `o=username=u,password=...`: a volume's `Options`, a mount's
 * `VolumeOptions.DriverConfig.Options`). Every map under one of these names has its values masked, its
 * option names kept. (`DnsOptions`, `DNSConfig.Options` and a plugin mount's `Options` are lists, not
 * maps, and stay.)
 */
const driverOptionMaps: ReadonlySet<string> = new Set(['Options', 'Config'])

/** True for `LogConfig.Config` or any `Options` map of strings (driverOptionMaps). */
function isDriverOptionMap(parentKey: string | undefined, key: string, value: unknown): boolean {
  if (!driverOptionMaps.has(key) || value === null || typeof value !== 'object' || Array.isArray(value))
    return false
  return key === 'Options' || parentKey === 'LogConfig'
}

/**
 * Replaces every value of every `Env` list and of every driver option map in `node`, and every
 * occurrence of the environment values (`redact`) in its command lines and in what its healthcheck
 * printed (`State.Health.Log[].Output`: a failing `test "$PASSWORD" = ...` shows the value there);
 * other fields are kept.
 */
function maskFields(node: unknown, redact: (text: string) => string, parentKey?: string): void {
  if (node === null || typeof node !== 'object') return
  const fields = node as Record<string, unknown>
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'Env' && Array.isArray(value)) fields[key] = value.map(maskEntry)
    else if (isDriverOptionMap(parentKey, key, value))
      fields[key] = Object.fromEntries(Object.keys(value as object).map((name) => [name, maskText]))
    else if (commandLineFields.has(key) && typeof value === 'string') fields[key] = redact(value)
    else if (commandLineFields.has(key) && Array.isArray(value)) fields[key] = maskCommandLine(value, redact)
    else if (key === 'Output' && parentKey === 'Log' && typeof value === 'string') fields[key] = redact(value)
    else maskFields(value, redact, Array.isArray(node) ? parentKey : key)
  }
}

/**
 * Masks an answer: each object of a list (services, tasks, plugins) with the values of its own
 * environment, a single object (an inspect) with its own.
 */
function maskEnvironment(answer: unknown): void {
  if (Array.isArray(answer)) for (const item of answer) maskEnvironment(item)
  else maskFields(answer, valueRedactor(environmentValues(answer)))
}

const failure = (message: string): MaskedAnswer => ({
  ok: false,
  status: 502,
  message: `vault proxy: ${message}`,
})

/** Collects one answer's body up to a cap, then parses it and masks it with `mask` (in place). */
interface AnswerCollector {
  /** Adds a body chunk; false once the cap is passed (stop reading: `finish` reports the error). */
  push(chunk: Buffer): boolean
  finish(mask: (answer: unknown) => void): MaskedAnswer
}

/** `what` names what masking protects, for the errors (`the container environment it carries`). */
function collectAnswer(rawHeaders: readonly string[], limit: number, what: string): AnswerCollector {
  const chunks: Buffer[] = []
  let size = 0
  let overflowed = false
  return {
    push(chunk) {
      if (overflowed) return false
      size += chunk.length
      if (size > limit) {
        overflowed = true
        chunks.length = 0
        return false
      }
      chunks.push(chunk)
      return true
    },
    finish(mask) {
      if (overflowed)
        return failure(
          `the answer is larger than ${limit} bytes, so ${what} cannot be masked; it was not forwarded`,
        )
      const encoding = headerValue(rawHeaders, 'content-encoding')
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity')
        return failure(`the answer is ${encoding}-encoded, so ${what} cannot be masked; it was not forwarded`)
      const answer = parseAnswer(Buffer.concat(chunks, size))
      if (answer === undefined) return failure(`the answer is not JSON, so ${what} cannot be masked`)
      mask(answer.value)
      return { ok: true, body: Buffer.from(JSON.stringify(answer.value) + '\n', 'utf8') }
    },
  }
}

/** The JSON in `body` (integers beyond 2^53 kept exact); undefined when it is not JSON. */
export function parseAnswer(body: Buffer): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(body.toString('utf8'), keepExactIntegers) }
  } catch {
    return undefined
  }
}

/** Starts masking an answer that carries container environment, whose head has arrived. */
export function createInspectMasker(
  rawHeaders: readonly string[],
  limit = maxInspectBodyBytes,
): InspectMasker {
  const collector = collectAnswer(rawHeaders, limit, 'the container environment it carries')
  return { push: (chunk) => collector.push(chunk), finish: () => collector.finish(maskEnvironment) }
}

/**
 * Starts masking a container's process list (`top`), whose head has arrived: `finish` takes the
 * environment values of the container (environmentValuesOf its inspect answer) and masks them in every
 * string of the list, as a process started by a shell from `$PASSWORD` shows the value in its arguments.
 */
export function createProcessListMasker(
  rawHeaders: readonly string[],
  limit = maxInspectBodyBytes,
): { push(chunk: Buffer): boolean; finish(values: readonly string[]): MaskedAnswer } {
  const collector = collectAnswer(rawHeaders, limit, 'the environment values in its process list')
  return {
    push: (chunk) => collector.push(chunk),
    finish: (values) =>
      collector.finish((answer) => redactStrings(answer, valueRedactor(values.flatMap(asPsShowsIt)))),
  }
}

// eslint-disable-next-line no-control-regex -- the characters ps does not print as they are
const unprintable = /[\u0000-\u001f\u007f]/g

/**
 * A value as it may show in `ps` output, which the engine's `top` answer is: procps prints each control
 * character of a command line (the newlines of a PEM key) as a blank (`ps -ef`, the engine's default,
 * checked in test/integration/adversarial/proxy/env-exposure-streams.test.ts) or as `?` (its escaped formats); the
 * value's own form stays for the lines that show it whole.
 */
export function asPsShowsIt(value: string): string[] {
  unprintable.lastIndex = 0
  if (!unprintable.test(value)) return [value]
  return [value, value.replace(unprintable, '?'), value.replace(unprintable, ' ')]
}

/**
 * The environment values of a container inspect answer that may be secrets, and whether the container
 * has a TTY (`Config.Tty`); undefined when it is not JSON.
 */
export function containerFactsOf(inspectBody: Buffer): { values: string[]; tty: boolean } | undefined {
  const answer = parseAnswer(inspectBody)
  if (!answer) return undefined
  const config = (answer.value as { Config?: { Tty?: unknown } } | null)?.Config
  return { values: environmentValues(answer.value), tty: config?.Tty === true }
}

/** Applies `redact` to every string in `node` (in place; object keys are kept). */
function redactStrings(node: unknown, redact: (text: string) => string): void {
  if (node === null || typeof node !== 'object') return
  const fields = node as Record<string, unknown>
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') fields[key] = redact(value)
    else redactStrings(value, redact)
  }
}
