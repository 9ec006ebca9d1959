/**
 * Masking of the engine's event stream (`GET /events`), one event at a time, as it flows: a container
 * event shows command lines in clear (`exec_start: /bin/sh -c test <password> = $DB_PASSWORD`, a
 * healthcheck's `exec_create`), so its `Action`, `status` and `Actor.Attributes` have the environment
 * values of that container masked, read from the engine (ReadContainer) and remembered for the stream.
 * A container whose environment cannot be read any more (removed, or a replay with `since`) has the
 * detail of its action (what follows `: `) masked whole. An event is at most 64 KiB; a longer line, or a
 * stream that is not JSON objects one per line, ends the stream.
 */
import { maskText, valueRedactor } from '../text/mask-text.js'
import type { ReadContainer } from './container-environment.js'
import { asPsShowsIt, parseAnswer } from './inspect-redact.js'
import type { StreamTransform } from './stream-relay.js'

/** The longest event line that is read (a real event is well under 4 KiB). */
export const maxEventBytes = 64 * 1024

/** Containers whose environment values one stream remembers (the oldest is forgotten first). */
const rememberedContainers = 256

const containerId = /^[0-9a-f]{12,64}$/

type Redact = (text: string) => string

interface EngineEvent {
  Type?: unknown
  Action?: unknown
  status?: unknown
  id?: unknown
  Actor?: { ID?: unknown; Attributes?: unknown }
}

/** `exec_start: sh -c ...` → `exec_start: ********` (the detail of an action whose values are unknown). */
const withoutDetail: Redact = (text) => {
  const colon = text.indexOf(': ')
  return colon === -1 ? text : `${text.slice(0, colon)}: ${maskText}`
}

function maskEvent(event: EngineEvent, redact: Redact): void {
  if (typeof event.Action === 'string') event.Action = redact(event.Action)
  if (typeof event.status === 'string') event.status = redact(event.status)
  const attributes = event.Actor?.Attributes
  if (attributes !== null && typeof attributes === 'object' && !Array.isArray(attributes)) {
    const fields = attributes as Record<string, unknown>
    for (const [key, value] of Object.entries(fields))
      if (typeof value === 'string') fields[key] = redact(value)
  }
}

/** The id of the container an event is about, when it is a container event. */
function containerOf(event: EngineEvent): string | undefined {
  const type = event.Type ?? (event.status !== undefined ? 'container' : undefined)
  if (type !== 'container') return undefined
  const id = event.Actor?.ID ?? event.id
  return typeof id === 'string' ? id : ''
}

/** The masking of one event stream, reading container environments through `readContainer`. */
export function createEventsMasker(readContainer: ReadContainer): StreamTransform {
  const redactors = new Map<string, Redact>()
  let partial: Buffer[] = []
  let partialLength = 0
  const redactorFor = (id: string, use: (redact: Redact) => void) => {
    const known = redactors.get(id)
    if (known) return use(known)
    if (!containerId.test(id)) return use(withoutDetail)
    readContainer(`/containers/${id}/json`, (facts) => {
      const redact = 'values' in facts ? valueRedactor(facts.values.flatMap(asPsShowsIt)) : withoutDetail
      if (redactors.size >= rememberedContainers) redactors.delete(redactors.keys().next().value!)
      redactors.set(id, redact)
      use(redact)
    })
  }
  const maskLine = (line: Buffer, send: (bytes: Buffer) => void, next: (error?: Error) => void) => {
    if (line.length === 0 || (line.length === 1 && line[0] === 0x0d)) return next()
    const parsed = parseAnswer(line)
    const event = parsed?.value
    if (event === null || typeof event !== 'object' || Array.isArray(event))
      return next(new Error('the event stream is not JSON objects'))
    const id = containerOf(event as EngineEvent)
    if (id === undefined) {
      send(Buffer.concat([line, newline]))
      return next()
    }
    redactorFor(id, (redact) => {
      maskEvent(event as EngineEvent, redact)
      send(Buffer.from(JSON.stringify(event) + '\n', 'utf8'))
      next()
    })
  }
  return {
    push(chunk, send, done) {
      const lines: Buffer[] = []
      let start = 0
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, end)
        if (partialLength + piece.length > maxEventBytes)
          return done(new Error(`an event is longer than ${maxEventBytes} bytes`))
        lines.push(partialLength ? Buffer.concat([...partial, piece]) : piece)
        partial = []
        partialLength = 0
        start = end + 1
      }
      if (start < chunk.length) {
        partialLength += chunk.length - start
        partial.push(Buffer.from(chunk.subarray(start)))
      }
      if (partialLength > maxEventBytes)
        return done(new Error(`an event is longer than ${maxEventBytes} bytes`))
      const next = (error?: Error): void => {
        if (error) return done(error)
        const line = lines.shift()
        if (line === undefined) return done()
        maskLine(line, send, next)
      }
      next()
    },
    end(send, done) {
      if (partialLength === 0) return done()
      const line = Buffer.concat(partial)
      partial = []
      partialLength = 0
      maskLine(line, send, done)
    },
  }
}

const newline = Buffer.from('\n')
