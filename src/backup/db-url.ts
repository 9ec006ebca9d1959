/**
 * Where a DB_URL points, for the parts of backup and restore that work on files and connections
 * directly (snapshot, file swap): the store's own parsing, a SQLite URL for a path, and redaction.
 */
export { parseDbUrl } from '../server/store/index.js'

/** A DB_URL for a SQLite file. */
export function sqliteUrl(path: string): string {
  return `sqlite://${path}`
}

/** `dbUrl` with any password replaced, safe to print. */
export function redactDbUrl(dbUrl: string): string {
  return dbUrl.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@')
}
