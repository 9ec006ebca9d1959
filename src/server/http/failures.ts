/**
 * How a request that failed with an error no handler mapped is logged and answered, for the API and
 * the console alike: a storage fault (store/faults.ts: disk full, database down) is a 503 with
 * Retry-After and a log line naming its cause; anything else is a 500 whose log line names the
 * error's class and code. Neither line nor answer holds the error's message, which may quote values.
 */
import { storeFaultOf } from '../store/faults.js'

/** The answer to an unexpected failure, and the line already logged for it. */
export interface Failure {
  status: 500 | 503
  apiCode: string
  message: string
  headers: Record<string, string>
}

const safeCode = /^[A-Za-z0-9_]{1,40}$/

/** Logs `error` under the request's id and returns its answer. */
export function unexpectedFailure(
  error: unknown,
  options: {
    engine: 'sqlite' | 'postgres'
    requestId: string
    /** How the log names the request: `request` (API) or `console request`. */
    what?: string
    log?: (line: string) => void
  },
): Failure {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const prefix = `vault server: ${options.what ?? 'request'} ${options.requestId} failed`
  const fault = storeFaultOf(error, options.engine)
  if (fault) {
    const what =
      fault.apiCode === 'storage_full' ? 'the database is out of disk space' : 'database unavailable'
    log(`${prefix}: ${what}: ${fault.cause}`)
    return {
      status: 503,
      apiCode: fault.apiCode,
      message: `${fault.message} (request ${options.requestId})`,
      headers: { 'retry-after': String(fault.retryAfterSeconds) },
    }
  }
  const name = error instanceof Error ? error.name : typeof error
  const code = (error as { code?: unknown } | undefined)?.code
  log(`${prefix}: ${name}${typeof code === 'string' && safeCode.test(code) ? ` (${code})` : ''}`)
  return {
    status: 500,
    apiCode: 'internal_error',
    message: `internal error (request ${options.requestId})`,
    headers: {},
  }
}
