/**
 * Reads a container's environment values from the engine, for masking its process list: a request of
 * the proxy's own for the container's inspect answer (held up to the masking cap), over the same
 * backend as the client's request.
 */
import type { Backend } from './backend.js'
import { environmentValuesOf, inspectTargetOf, maxInspectBodyBytes } from './inspect-redact.js'
import type { ReadEnvironment } from './masked-relay.js'

/** A ReadEnvironment for the container whose process list `topTarget` asks for. */
export function containerEnvironmentReader(backend: Backend, topTarget: string): ReadEnvironment {
  return (done) => {
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
      { method: 'GET', target: inspectTargetOf(topTarget), headers: [] },
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
            environmentValuesOf(Buffer.concat(chunks, size)) ?? { failed: 'its inspect answer is not JSON' },
          )
        },
        onError: (error) => settle({ failed: error.code ?? error.message }),
      },
    )
  }
}
