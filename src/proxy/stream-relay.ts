/**
 * The relay of a streamed answer that is masked as it flows (container logs, the event stream): the
 * answer's head waits until the masking is ready (the container's environment has been read), then each
 * chunk goes through the transform and on to the client. The engine is paused while the transform is
 * busy (an event waiting for a container's environment) or the client does not read, so nothing piles up
 * in the proxy. The answer is re-framed (chunked): masking changes its length.
 */
import type { Exchange, ExchangeHandlers } from './exchange.js'
import type { MaskedReply } from './masked-relay.js'

/** A masking step over a stream: `push` sends what may go out and calls `done` when it can take more. */
export interface StreamTransform {
  push(chunk: Buffer, send: (bytes: Buffer) => void, done: (error?: Error) => void): void
  end(send: (bytes: Buffer) => void, done: (error?: Error) => void): void
}

/** Prepares the transform (reading what it needs), or says why the answer cannot be masked. */
export type PrepareTransform = (ready: (transform: StreamTransform | { failed: string }) => void) => void

/** The relay's handlers for an answer whose head (status, message, raw headers) has arrived. */
export function streamRelay(
  relay: ExchangeHandlers,
  head: [number, string, string[]],
  hooks: { getExchange: () => Exchange; reply: MaskedReply; prepare: PrepareTransform },
): Omit<ExchangeHandlers, 'onHead'> {
  const { getExchange, reply } = hooks
  const queue: Buffer[] = []
  let transform: StreamTransform | undefined
  let busy = false
  let ended = false
  let finished = false
  let pausedHere = false
  let clientFull = false
  const send = (bytes: Buffer) => {
    if (bytes.length > 0 && !finished) clientFull = !relay.onBody(bytes)
  }
  const fail = (error: Error) => {
    if (finished) return
    finished = true
    getExchange().abort()
    relay.onError(error as NodeJS.ErrnoException, true)
  }
  const pump = (): void => {
    if (busy || !transform || finished) return
    const chunk = queue.shift()
    if (chunk === undefined) {
      if (ended) {
        busy = true
        return transform.end(send, (error) => {
          if (error) return fail(error)
          finished = true
          relay.onEnd()
        })
      }
      if (pausedHere && !clientFull) {
        pausedHere = false
        getExchange().resume()
      }
      return
    }
    busy = true
    transform.push(chunk, send, (error) => {
      busy = false
      if (error) fail(error)
      else pump()
    })
  }
  hooks.prepare((prepared) => {
    if ('failed' in prepared) {
      finished = true
      getExchange().abort()
      return reply.error(
        502,
        `vault proxy: ${prepared.failed}, so the answer cannot be masked; it was not forwarded`,
      )
    }
    transform = prepared
    const headers = head[2].filter((_, i, all) => {
      const name = (i % 2 === 0 ? all[i] : all[i - 1])!.toLowerCase()
      return name !== 'content-length' && name !== 'transfer-encoding'
    })
    relay.onHead(head[0], head[1], headers)
    pump()
  })
  return {
    onBody(chunk) {
      queue.push(chunk)
      pump()
      if (busy || queue.length > 0 || !transform) {
        pausedHere = true
        return false
      }
      return !clientFull
    },
    onEnd() {
      ended = true
      pump()
    },
    onError(error) {
      if (finished) return
      finished = true
      if (!transform)
        reply.error(502, `vault proxy: the masked answer was cut (${error.code ?? error.message})`)
      else relay.onError(error, true)
    },
  }
}
