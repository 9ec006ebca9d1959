/**
 * Connectivity probes outside the vault API: a GET on a Docker-API endpoint such as the socket
 * proxy's `/_ping`. Answers with the status or the network error code, never throws.
 */

export interface ProbeResult {
  ok: boolean
  /** The HTTP status, or the network error code. */
  outcome: number | string
}

/** GET `url` with a short timeout and no retries. */
export async function probeUrl(url: string, timeoutMs = 5000): Promise<ProbeResult> {
  const { default: got, RequestError } = await import('got')
  try {
    const response = await got(url, {
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: timeoutMs },
      followRedirect: false,
    })
    return { ok: response.statusCode >= 200 && response.statusCode < 300, outcome: response.statusCode }
  } catch (error) {
    return { ok: false, outcome: error instanceof RequestError ? error.code : 'error' }
  }
}
