/**
 * The masking step of the relay: wraps the handlers that carry the engine's answer to the client. An
 * answer carrying container environment (inspect-redact.ts) is held back, collected up to the cap, masked and
 * sent whole, or replaced by a clear 502. A container's process list is held back the same way, then
 * masked with the environment values of that container, read from the engine by `readContainer`. A
 * container's logs and the event stream are masked as they flow (stream-relay.ts). Every other answer
 * passes through untouched, chunk by chunk.
 */
import type { Exchange, ExchangeHandlers } from './exchange.js'
import type { Holder } from './held-budget.js'
import type { ReadContainer } from './container-environment.js'
import { createEventsMasker } from './events-mask.js'
import {
  createInspectMasker,
  createProcessListMasker,
  inspectTargetOf,
  needsEnvMasking,
  needsEventMasking,
  needsLogMasking,
  needsProcessListMasking,
  type MaskedAnswer,
} from './inspect-redact.js'
import { createFrameMasker, createStreamMasker } from './stream-mask.js'
import { streamRelay, type PrepareTransform } from './stream-relay.js'

/** How the masked answer (or the error in its place) reaches the client. */
export interface MaskedReply {
  whole(status: number, statusMessage: string, rawHeaders: string[], body: Buffer): void
  error(status: number, message: string): void
}

/** An answer being held back: its chunks go to `push`; `finish` delivers the masked whole. */
interface HeldAnswer {
  push(chunk: Buffer): boolean
  finish(deliver: (answer: MaskedAnswer) => void): void
}

/** What the masking step works with besides the relay: its exchange, its replies, the container reader. */
export interface MaskingHooks {
  getExchange: () => Exchange
  reply: MaskedReply
  readContainer: ReadContainer
  /** What the held answer counts against the global budget (held-budget.ts). */
  holder?: Holder
}

/** Prepares the masking of a container's logs: raw for a TTY container, else the engine's frames. */
function logTransform(readContainer: ReadContainer, target: string): PrepareTransform {
  return (ready) =>
    readContainer(inspectTargetOf(target), (facts) => {
      if (!('values' in facts))
        return ready({ failed: `the container's environment could not be read (${facts.failed})` })
      const masker = facts.tty ? createStreamMasker(facts.values) : createFrameMasker(facts.values)
      ready({
        push(chunk, send, done) {
          send(masker.push(chunk))
          done()
        },
        end(send, done) {
          send(masker.end())
          done()
        },
      })
    })
}

const turns: (() => void)[] = []

/** Runs the next masking, then lets the event loop serve its I/O before the one after. */
function nextTurn(): void {
  turns.shift()!()
  if (turns.length > 0) setImmediate(nextTurn)
}

/**
 * Masks a held answer in its turn: one per turn of the event loop, after the I/O that was waiting (large
 * answers masked back to back held ordinary requests for seconds: docs/proxy-performance.md, "Floods").
 */
function inTurn(masking: () => void): void {
  turns.push(masking)
  if (turns.length === 1) setImmediate(nextTurn)
}

/** The relay's handlers with the container environment in the answer to `method path` masked. */
export function withEnvMasking(
  relay: ExchangeHandlers,
  request: { method: string; path: string; target: string },
  hooks: MaskingHooks,
): ExchangeHandlers {
  const { getExchange, reply, readContainer } = hooks
  const { method, path, target } = request
  let streamed: Omit<ExchangeHandlers, 'onHead'> | undefined
  let held: HeldAnswer | undefined
  let head: [number, string, string[]] | undefined
  let finished = false
  const deliver = (answer: MaskedAnswer) => {
    if (answer.ok) reply.whole(head![0], head![1], head![2], answer.body)
    else reply.error(answer.status, answer.message)
  }
  const finish = () => {
    if (finished || !held || !head) return
    finished = true
    const answer = held
    inTurn(() => answer.finish(deliver))
  }
  return {
    onHead(status, statusMessage, rawHeaders) {
      if (needsEnvMasking(method, path, status)) {
        const masker = createInspectMasker(rawHeaders)
        held = { push: (chunk) => masker.push(chunk), finish: (done) => done(masker.finish()) }
      } else if (needsProcessListMasking(method, path, status)) {
        const masker = createProcessListMasker(rawHeaders)
        held = {
          push: (chunk) => masker.push(chunk),
          finish: (done) =>
            readContainer(inspectTargetOf(target), (facts) =>
              done(
                'values' in facts
                  ? masker.finish(facts.values)
                  : {
                      ok: false,
                      status: 502,
                      message: `vault proxy: the container's environment could not be read (${facts.failed}), so the environment values in its process list cannot be masked; it was not forwarded`,
                    },
              ),
            ),
        }
      } else if (needsLogMasking(method, path, status) || needsEventMasking(method, path, status)) {
        const prepare: PrepareTransform = needsLogMasking(method, path, status)
          ? logTransform(readContainer, target)
          : (ready) => ready(createEventsMasker(readContainer))
        streamed = streamRelay(relay, [status, statusMessage, rawHeaders], { getExchange, reply, prepare })
        return
      } else return relay.onHead(status, statusMessage, rawHeaders)
      head = [status, statusMessage, rawHeaders]
    },
    onBody(chunk) {
      if (streamed) return streamed.onBody(chunk)
      if (!held) return relay.onBody(chunk)
      if (finished) return true
      if (hooks.holder && !hooks.holder.reserve(chunk.length)) {
        finished = true
        getExchange().abort()
        reply.error(
          503,
          'vault proxy: the proxy holds as many masked answers as it may (clients have not read them yet); try again',
        )
        return true
      }
      if (!held.push(chunk)) {
        getExchange().abort()
        finish()
      }
      return true
    },
    onEnd() {
      if (streamed) streamed.onEnd()
      else if (held) finish()
      else relay.onEnd()
    },
    onError(error, afterHead) {
      if (streamed) streamed.onError(error, afterHead)
      else if (held && !finished) {
        finished = true
        reply.error(
          502,
          `vault proxy: the answer carrying container environment was cut (${error.code ?? error.message})`,
        )
      } else relay.onError(error, afterHead)
    },
  }
}
