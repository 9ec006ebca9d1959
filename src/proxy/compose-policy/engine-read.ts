/**
 * The proxy's own reads of the engine for the compose policy: the inspect answer of a container,
 * network or volume (its labels, id and name), over the same backend as the client's request, bounded.
 */
import type { Backend } from '../backend.js'

/** What the engine answered: its status, and the JSON body (undefined when it is not JSON). */
export interface EngineAnswer {
  status: number
  json: unknown
}

/** Reads `target` from the engine; `failed` says why when the engine could not be asked or answered. */
export type EngineRead = (target: string) => Promise<EngineAnswer | { failed: string }>

const maxAnswerBytes = 4 << 20

export function engineReader(backend: Backend): EngineRead {
  return (target) =>
    new Promise((resolve) => {
      const chunks: Buffer[] = []
      let size = 0
      let status = 0
      let settled = false
      const settle = (result: EngineAnswer | { failed: string }) => {
        if (settled) return
        settled = true
        resolve(result)
      }
      const exchange = backend.exchange(
        { method: 'GET', target, headers: [] },
        {
          onHead: (engineStatus) => (status = engineStatus),
          onBody(chunk) {
            size += chunk.length
            if (size > maxAnswerBytes) {
              exchange.abort()
              settle({ failed: `the engine's answer is larger than ${maxAnswerBytes} bytes` })
            } else chunks.push(chunk)
            return true
          },
          onEnd() {
            let json: unknown
            try {
              json = JSON.parse(Buffer.concat(chunks, size).toString('utf8'))
            } catch {
              json = undefined
            }
            settle({ status, json })
          },
          onError: (error) => settle({ failed: error.code ?? error.message }),
        },
      )
    })
}
