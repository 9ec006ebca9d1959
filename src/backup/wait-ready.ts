/**
 * Waiting until a database accepts queries: a `SELECT 1` retried with growing pauses up to a bounded
 * time, instead of the seed's fixed ten-second sleep.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { UnreachableError } from '../errors.js'
import { redactDbUrl } from './db-url.js'

/** Resolves with the milliseconds waited once `SELECT 1` succeeds on `url`; throws after `timeoutMs`. */
export async function waitForPostgres(url: string, timeoutMs = 60_000): Promise<number> {
  const started = Date.now()
  let pause = 100
  let lastError = 'no answer'
  while (Date.now() - started < timeoutMs) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 })
    client.on('error', () => undefined)
    try {
      await client.connect()
      await client.query('SELECT 1')
      return Date.now() - started
    } catch (error) {
      lastError = (error as Error).message
    } finally {
      await client.end().catch(() => undefined)
    }
    await sleep(Math.min(pause, Math.max(0, timeoutMs - (Date.now() - started))))
    pause = Math.min(pause * 2, 2_000)
  }
  throw new UnreachableError(
    `the database at ${redactDbUrl(url)} was not ready after ${Math.round(timeoutMs / 1000)} s (${lastError})`,
    { hint: 'check the database service (compose logs) and that DB_URL points at it' },
  )
}
