/**
 * A private MariaDB server for the rotator tests (machine.md): mariadb-install-db in a temporary
 * directory, mariadbd as the `mysql` user on 127.0.0.1 and a free port with --skip-name-resolve, the
 * anonymous users removed; stopped by its own pid at the end (a server we did not start is never touched).
 */
import { execFileSync, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from './ports.js'

export interface MariadbInfo {
  port: number
  /** The server's unix socket (root logs in there through socket authentication). */
  socket: string
  dir: string
  pid: number
}

/** Why MariaDB cannot start here, or undefined when it can. */
export function mariadbUnavailableReason(): string | undefined {
  for (const binary of ['/usr/sbin/mariadbd', '/usr/bin/mariadb', '/usr/bin/mariadb-install-db']) {
    if (!existsSync(binary)) return `${binary} is missing (apt-get install mariadb-server mariadb-client)`
  }
  if (process.getuid?.() !== 0) return 'the private MariaDB runs as the mysql user: needs root'
  return undefined
}

const asMysql = (command: string, args: string[]) =>
  execFileSync('runuser', ['-u', 'mysql', '--', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })

/** Starts a private server and waits until it answers. */
export async function startMariadb(): Promise<MariadbInfo> {
  const dir = mkdtempSync('/tmp/vault-mariadb-')
  chownSync(dir, Number(execFileSync('id', ['-u', 'mysql'], { encoding: 'utf8' }).trim()), 0)
  asMysql('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${join(dir, 'data')}`,
    '--auth-root-authentication-method=socket',
    '--skip-test-db',
  ])
  const port = await freePort()
  const socket = join(dir, 'sock')
  const server = spawn(
    'runuser',
    [
      '-u',
      'mysql',
      '--',
      '/usr/sbin/mariadbd',
      '--no-defaults',
      `--datadir=${join(dir, 'data')}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      '--skip-name-resolve',
      `--pid-file=${join(dir, 'pid')}`,
      `--log-error=${join(dir, 'error.log')}`,
    ],
    { detached: true, stdio: 'ignore' },
  )
  server.unref()
  const info: MariadbInfo = { port, socket, dir, pid: -1 }
  for (let attempt = 0; attempt < 300; attempt++) {
    if (existsSync(socket) && existsSync(join(dir, 'pid'))) {
      info.pid = Number(readFileSync(join(dir, 'pid'), 'utf8').trim())
      rootSql(info, "DELETE FROM mysql.global_priv WHERE User=''; FLUSH PRIVILEGES;")
      return info
    }
    await sleep(100)
  }
  const log = existsSync(join(dir, 'error.log'))
    ? readFileSync(join(dir, 'error.log'), 'utf8').slice(-1500)
    : ''
  throw new Error(`private MariaDB did not start\n${log}`)
}

/** Runs SQL as root over the unix socket. */
export function rootSql(info: MariadbInfo, sql: string): string {
  return execFileSync('mariadb', ['--no-defaults', '-S', info.socket, '-u', 'root', '-N', '-B', '-e', sql], {
    encoding: 'utf8',
  })
}

/** Stops the server by its pid and removes its directory. */
export async function stopMariadb(info: MariadbInfo): Promise<void> {
  try {
    if (info.pid > 0) {
      process.kill(info.pid, 'SIGTERM')
      for (let attempt = 0; attempt < 100; attempt++) {
        try {
          process.kill(info.pid, 0)
        } catch {
          break
        }
        await sleep(100)
      }
    }
  } finally {
    rmSync(info.dir, { recursive: true, force: true })
  }
}
