/**
 * A private PostgreSQL cluster for the test suite: initdb in a temporary directory, listening on
 * 127.0.0.1 and a free port, run as the `postgres` user when we are root; stopped by pg_ctl at the end.
 */
import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from './ports.js'

export interface PostgresInfo {
  /** Connection URL of the cluster's `postgres` database, as the superuser. */
  url: string
  port: number
  dir: string
}

const binDir = '/usr/lib/postgresql/15/bin'

/** Why PostgreSQL cannot start here, or undefined when it can. */
export function postgresUnavailableReason(): string | undefined {
  if (!existsSync(join(binDir, 'initdb'))) return `${binDir}/initdb is missing (apt-get install postgresql)`
  return undefined
}

function asPostgres(command: string, args: string[]): string {
  const isRoot = process.getuid?.() === 0
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/**
 * Creates and starts a private cluster: trust authentication, or with `superuserPassword` scram-sha-256
 * everywhere so that passwords matter (the URL then carries the password).
 */
export async function startPostgres(options: { superuserPassword?: string } = {}): Promise<PostgresInfo> {
  const dir = mkdtempSync('/tmp/vault-pg-')
  if (process.getuid?.() === 0)
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), 0)
  const port = await freePort()
  const password = options.superuserPassword
  const auth = password ? ['-A', 'scram-sha-256', `--pwfile=${join(dir, 'pwfile')}`] : ['-A', 'trust']
  if (password) {
    writeFileSync(join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 })
    if (process.getuid?.() === 0)
      chownSync(
        join(dir, 'pwfile'),
        Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
        0,
      )
  }
  asPostgres(join(binDir, 'initdb'), ['-D', join(dir, 'data'), ...auth, '-U', 'postgres', '--no-sync'])
  startServer({ dir, port })
  const credentials = password ? `postgres:${encodeURIComponent(password)}` : 'postgres'
  return { url: `postgres://${credentials}@127.0.0.1:${port}/postgres`, port, dir }
}

function startServer({ dir, port }: Pick<PostgresInfo, 'dir' | 'port'>): void {
  asPostgres(join(binDir, 'pg_ctl'), [
    '-D',
    join(dir, 'data'),
    '-l',
    join(dir, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    'start',
  ])
}

/** Stops a private cluster's server (fast shutdown) and keeps its data, for a test of a database that went down. */
export function pausePostgres(info: PostgresInfo): void {
  asPostgres(join(binDir, 'pg_ctl'), ['-D', join(info.dir, 'data'), '-m', 'fast', '-w', 'stop'])
}

/** Starts a paused private cluster again, on the same port. */
export function resumePostgres(info: PostgresInfo): void {
  startServer(info)
}

function isRunning(info: PostgresInfo): boolean {
  try {
    asPostgres(join(binDir, 'pg_ctl'), ['-D', join(info.dir, 'data'), 'status'])
    return true
  } catch {
    return false
  }
}

/** Stops the cluster (unless a test left it paused) and removes its directory. */
export async function stopPostgres(info: PostgresInfo): Promise<void> {
  try {
    if (isRunning(info)) pausePostgres(info)
  } finally {
    rmSync(info.dir, { recursive: true, force: true })
  }
}
