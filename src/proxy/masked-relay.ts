/**
 * The masking step of the relay: wraps the handlers that carry the engine's answer to the client. An
 * answer carrying container environment (inspect-redact.ts) is held back, collected up to the cap, masked and
 * sent whole, or replaced by a clear 502; every other answer passes through untouched, chunk by chunk.
 */
import type { Exchange, ExchangeHandlers } from './exchange.js'
import { createInspectMasker, needsEnvMasking, type InspectMasker } from './inspect-redact.js'

/** How the masked answer (or the error in its place) reaches the client. */
export interface MaskedReply {
  whole(status: number, statusMessage: string, rawHeaders: string[], body: Buffer): void
  error(status: number, message: string): void
}

/** The relay's handlers with the container environment in the answer to `method path` masked. */
export function withEnvMasking(
  relay: ExchangeHandlers,
  request: { method: string; path: string },
  getExchange: () => Exchange,
  reply: MaskedReply,
): ExchangeHandlers {
  const { method, path } = request
  let masker: InspectMasker | undefined
  let head: [number, string, string[]] | undefined
  let finished = false
  const finish = () => {
    if (finished || !masker || !head) return
    finished = true
    const answer = masker.finish()
    if (answer.ok) reply.whole(head[0], head[1], head[2], answer.body)
    else reply.error(answer.status, answer.message)
  }
  return {
    onHead(status, statusMessage, rawHeaders) {
      if (!needsEnvMasking(method, path, status)) return relay.onHead(status, statusMessage, rawHeaders)
      masker = createInspectMasker(rawHeaders)
      head = [status, statusMessage, rawHeaders]
    },
    onBody(chunk) {
      if (!masker) return relay.onBody(chunk)
      if (!masker.push(chunk)) {
        getExchange().abort()
        finish()
      }
      return true
    },
    onEnd() {
      if (masker) finish()
      else relay.onEnd()
    },
    onError(error, afterHead) {
      if (masker && !finished) {
        finished = true
        reply.error(
          502,
          `vault proxy: the answer carrying container environment was cut (${error.code ?? error.message})`,
        )
      } else relay.onError(error, afterHead)
    },
  }
}
