/**
 * The masking step of the relay: wraps the handlers that carry the engine's answer to the client. An
 * answer carrying container environment (inspect-redact.ts) is held back, collected up to the cap, masked and
 * sent whole, or replaced by a clear 502. A container's process list is held back the same way, then
 * masked with the environment values of that container, read from the engine by `readEnvironment`.
 * Every other answer passes through untouched, chunk by chunk.
 */
import type { Exchange, ExchangeHandlers } from './exchange.js'
import {
  createInspectMasker,
  createProcessListMasker,
  needsEnvMasking,
  needsProcessListMasking,
  type MaskedAnswer,
} from './inspect-redact.js'

/** How the masked answer (or the error in its place) reaches the client. */
export interface MaskedReply {
  whole(status: number, statusMessage: string, rawHeaders: string[], body: Buffer): void
  error(status: number, message: string): void
}

/**
 * Reads the environment values of the container a process list belongs to: `done` gets them, or the
 * reason they could not be read.
 */
export type ReadEnvironment = (done: (values: string[] | { failed: string }) => void) => void

/** An answer being held back: its chunks go to `push`; `finish` delivers the masked whole. */
interface HeldAnswer {
  push(chunk: Buffer): boolean
  finish(deliver: (answer: MaskedAnswer) => void): void
}

/** What the masking step works with besides the relay: its exchange, its replies, the environment reader. */
export interface MaskingHooks {
  getExchange: () => Exchange
  reply: MaskedReply
  readEnvironment: ReadEnvironment
}

/** The relay's handlers with the container environment in the answer to `method path` masked. */
export function withEnvMasking(
  relay: ExchangeHandlers,
  request: { method: string; path: string },
  hooks: MaskingHooks,
): ExchangeHandlers {
  const { getExchange, reply, readEnvironment } = hooks
  const { method, path } = request
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
    held.finish(deliver)
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
            readEnvironment((values) =>
              done(
                Array.isArray(values)
                  ? masker.finish(values)
                  : {
                      ok: false,
                      status: 502,
                      message: `vault proxy: the container's environment could not be read (${values.failed}), so the environment values in its process list cannot be masked; it was not forwarded`,
                    },
              ),
            ),
        }
      } else return relay.onHead(status, statusMessage, rawHeaders)
      head = [status, statusMessage, rawHeaders]
    },
    onBody(chunk) {
      if (!held) return relay.onBody(chunk)
      if (!held.push(chunk)) {
        getExchange().abort()
        finish()
      }
      return true
    },
    onEnd() {
      if (held) finish()
      else relay.onEnd()
    },
    onError(error, afterHead) {
      if (held && !finished) {
        finished = true
        reply.error(
          502,
          `vault proxy: the answer carrying container environment was cut (${error.code ?? error.message})`,
        )
      } else relay.onError(error, afterHead)
    },
  }
}
