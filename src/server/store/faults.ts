/**
 * What a storage failure means, in one place: the errors of node:sqlite, of pg and of the sockets
 * under it that say the database is out of space or out of reach (not that the request was wrong).
 * A request that meets one is answered 503 with a Retry-After, and the log names the cause by the
 * engine's own code (`SQLITE_FULL: database or disk is full`, `ECONNREFUSED connecting to PostgreSQL
 * at 127.0.0.1:5432`, `57P01 admin_shutdown`). The cause is built from codes, fixed texts and the
 * peer's address only, never from a driver's message, which may quote a statement's values; a
 * connection string (and its password) never reaches an error here.
 */

/** A storage failure a client can retry. */
export interface StoreFault {
  /** The API error code: the disk is full, or the database cannot be reached or cannot serve. */
  apiCode: 'storage_full' | 'database_unavailable'
  /** One line for the client, with no detail of the database. */
  message: string
  /** The seconds a client should wait before retrying. */
  retryAfterSeconds: number
  /** One line for the server's log naming the engine's cause. */
  cause: string
}

/** node:sqlite's primary result codes that are faults of the storage (sqlite3.h). */
const sqliteFaults = new Map<number, { name: string; full?: boolean }>([
  [5, { name: 'SQLITE_BUSY' }],
  [6, { name: 'SQLITE_LOCKED' }],
  [7, { name: 'SQLITE_NOMEM' }],
  [8, { name: 'SQLITE_READONLY' }],
  [10, { name: 'SQLITE_IOERR' }],
  [13, { name: 'SQLITE_FULL', full: true }],
  [14, { name: 'SQLITE_CANTOPEN' }],
])

/**
 * PostgreSQL's SQLSTATEs that are faults of the server, not of the statement (appendix A). Maps, not
 * objects: a code is text from the wire, and `constructor` must not find Object's.
 */
const postgresFaults = new Map<string, { name: string; full?: boolean }>([
  ['08000', { name: 'connection_exception' }],
  ['08001', { name: 'sqlclient_unable_to_establish_sqlconnection' }],
  ['08003', { name: 'connection_does_not_exist' }],
  ['08004', { name: 'sqlserver_rejected_establishment_of_sqlconnection' }],
  ['08006', { name: 'connection_failure' }],
  ['25006', { name: 'read_only_sql_transaction' }],
  ['53000', { name: 'insufficient_resources' }],
  ['53100', { name: 'disk_full', full: true }],
  ['53200', { name: 'out_of_memory' }],
  ['53300', { name: 'too_many_connections' }],
  ['57P01', { name: 'admin_shutdown' }],
  ['57P02', { name: 'crash_shutdown' }],
  ['57P03', { name: 'cannot_connect_now' }],
  ['58030', { name: 'io_error' }],
])

/** Socket errors on the way to PostgreSQL. */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/** pg's own errors for a connection that broke or never came (fixed texts of pg and pg-pool). */
const pgConnectionMessages = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
]

function full(cause: string): StoreFault {
  return {
    apiCode: 'storage_full',
    message: "the vault's database is out of disk space; nothing was written; retry later",
    retryAfterSeconds: 60,
    cause,
  }
}

function unavailable(cause: string): StoreFault {
  return {
    apiCode: 'database_unavailable',
    message: "the vault's database is unavailable; retry later",
    retryAfterSeconds: 5,
    cause,
  }
}

function sqliteFault(error: { errcode?: unknown; errstr?: unknown }): StoreFault | undefined {
  if (typeof error.errcode !== 'number') return undefined
  const known = sqliteFaults.get(error.errcode & 0xff)
  if (!known) return undefined
  const text = typeof error.errstr === 'string' ? `: ${error.errstr.slice(0, 80)}` : ''
  const cause = `${known.name}${text}`
  return known.full ? full(cause) : unavailable(cause)
}

function postgresFault(
  error: Error & { code?: unknown; address?: unknown; port?: unknown },
): StoreFault | undefined {
  const code = typeof error.code === 'string' ? error.code : undefined
  if (code && networkCodes.has(code)) {
    const where =
      typeof error.address === 'string'
        ? ` at ${error.address}${error.port ? `:${Number(error.port)}` : ''}`
        : ''
    return unavailable(`${code} connecting to PostgreSQL${where}`)
  }
  const known = code ? postgresFaults.get(code) : undefined
  if (known) {
    const cause = `${code} ${known.name} (PostgreSQL)`
    return known.full ? full(cause) : unavailable(cause)
  }
  if (code === undefined && pgConnectionMessages.includes(error.message)) {
    return unavailable(`PostgreSQL: ${error.message}`)
  }
  return undefined
}

/**
 * The storage fault `error` stands for on `engine`, or undefined when it is anything else (a bug, a
 * constraint, a domain error). Looks through one `cause`.
 */
export function storeFaultOf(error: unknown, engine: 'sqlite' | 'postgres'): StoreFault | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 2; depth++) {
    const fault =
      engine === 'sqlite'
        ? sqliteFault(current as { errcode?: unknown; errstr?: unknown })
        : postgresFault(current)
    if (fault) return fault
    current = current.cause
  }
  return undefined
}
