/**
 * Connectivity probes outside the vault API: a GET on a Docker-API endpoint such as the socket
 * proxy's `/_ping`. Answers with the status or the network error code, never throws.
 */
import { NetworkError, sendOnce } from './http-send.js'

export interface ProbeResult {
  ok: boolean
  /** The HTTP status, or the network error code. */
  outcome: number | string
}

/** GET `url` with a short timeout and no retries. */
export async function probeUrl(url: string, timeoutMs = 5000): Promise<ProbeResult> {
  try {
    const response = await sendOnce(new URL(url), { method: 'GET', timeoutMs })
    return { ok: response.status >= 200 && response.status < 300, outcome: response.status }
  } catch (error) {
    return { ok: false, outcome: error instanceof NetworkError ? error.reason : 'error' }
  }
}
