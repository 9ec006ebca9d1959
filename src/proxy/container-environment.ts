/**
 * Reads what masking needs to know about a container from the engine: its environment values and
 * whether it has a TTY (its logs are then one raw stream, else the engine's multiplexed frames). A
 * request of the proxy's own for the container's inspect answer (held up to the masking cap), over the
 * same backend as the client's request.
 */
import type { Backend } from './backend.js'
import { containerFactsOf, maxInspectBodyBytes } from './inspect-redact.js'

/** What masking knows about a container. */
export interface ContainerFacts {
  values: string[]
  tty: boolean
}

/**
 * Reads the facts of the container whose inspect is at `inspectTarget`: `done` gets them, or the reason
 * they could not be read.
 */
export type ReadContainer = (
  inspectTarget: string,
  done: (facts: ContainerFacts | { failed: string }) => void,
) => void

/** A ReadContainer over `backend`. */
export function containerReader(backend: Backend): ReadContainer {
  return (inspectTarget, done) => {
    const chunks: Buffer[] = []
    let size = 0
    let status = 0
    let settled = false
    const settle = (result: Parameters<typeof done>[0]) => {
      if (settled) return
      settled = true
      done(result)
    }
    const exchange = backend.exchange(
      { method: 'GET', target: inspectTarget, headers: [] },
      {
        onHead: (engineStatus) => (status = engineStatus),
        onBody(chunk) {
          size += chunk.length
          if (size > maxInspectBodyBytes) {
            exchange.abort()
            settle({ failed: `its inspect answer is larger than ${maxInspectBodyBytes} bytes` })
          } else chunks.push(chunk)
          return true
        },
        onEnd() {
          if (status !== 200) return settle({ failed: `the engine answered its inspect with ${status}` })
          settle(
            containerFactsOf(Buffer.concat(chunks, size)) ?? { failed: 'its inspect answer is not JSON' },
          )
        },
        onError: (error) => settle({ failed: error.code ?? error.message }),
      },
    )
  }
}
