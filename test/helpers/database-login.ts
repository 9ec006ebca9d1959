/**
 * Whether a database on 127.0.0.1 accepts a sign-in: what the rotator tests ask of PostgreSQL and MariaDB
 * before and after a password changes. A refused sign-in is false, never an exception.
 */
import mariadb from 'mariadb'
import pg from 'pg'

/** Whether PostgreSQL on `port` lets `user` in with `password` (database `postgres`) and answers a query. */
export async function postgresAccepts(port: number, user: string, password: string): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user, password, database: 'postgres' })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Whether MariaDB on `port` lets `user` in with `password`. */
export async function mariadbAccepts(port: number, user: string, password: string): Promise<boolean> {
  try {
    const connection = await mariadb.createConnection({ host: '127.0.0.1', port, user, password })
    await connection.end()
    return true
  } catch {
    return false
  }
}
