/**
 * Where a DB_URL points, for the parts of backup and restore that work on files and connections
 * directly (snapshot, file swap): the same schemes the store accepts, and the same refusal otherwise.
 */
import { resolve } from 'node:path'
import { openDriver } from '../server/store/index.js'

export type DbTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string }

/** The engine and location of `dbUrl` (`sqlite:///path`, a bare path or `postgres://`). */
export function parseDbUrl(dbUrl: string): DbTarget {
  if (/^postgres(ql)?:\/\//.test(dbUrl)) return { engine: 'postgres', url: dbUrl }
  if (dbUrl.startsWith('sqlite://')) {
    return { engine: 'sqlite', path: resolve(decodeURIComponent(dbUrl.slice('sqlite://'.length))) }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(dbUrl)) openDriver(dbUrl)
  return { engine: 'sqlite', path: resolve(dbUrl) }
}

/** A DB_URL for a SQLite file. */
export function sqliteUrl(path: string): string {
  return `sqlite://${path}`
}

/** `dbUrl` with any password replaced, safe to print. */
export function redactDbUrl(dbUrl: string): string {
  return dbUrl.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@')
}
