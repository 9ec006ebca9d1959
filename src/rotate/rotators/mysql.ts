/**
 * The MySQL / MariaDB rotator: `SET PASSWORD` for the current user, authenticated with the current
 * password (MariaDB: `SET PASSWORD = PASSWORD(...)`, which needs no privilege; MySQL: `SET PASSWORD =
 * '...'`), through a URL (the pure-JS `mariadb` connector; any password in the URL is ignored) or the
 * image's own client inside the compose service (`mariadb`, else `mysql`, neither: exit 3; via `compose exec -T`, the
 * password read into MYSQL_PWD from the first stdin line, then the SQL). A fresh login with the new password must succeed before
 * the vault changes; if it fails, the session that changed it puts the old one back.
 */
import {
  checkClientPresent,
  clientErrorLine,
  clientMissingExitCode,
  RotatorLoginError,
  RotatorRefusedError,
} from './errors.js'
import {
  changePasswordByUrl,
  checkPassword,
  passwordFromStdin,
  passwordLine,
  refusedHint,
  restoreInService,
  type DatabaseRotator,
  type RotatorTarget,
  type ServiceExec,
} from './rotator.js'

/** A MySQL string literal (backslash escapes, as without NO_BACKSLASH_ESCAPES). */
export function mysqlLiteral(value: string): string {
  const named: Record<string, string> = { '\0': '\\0', '\n': '\\n', '\r': '\\r', '\u001a': '\\Z' }
  const escaped = [...value].map((char) => named[char] ?? (`'"\\`.includes(char) ? `\\${char}` : char))
  return `'${escaped.join('')}'`
}

/** The MySQL/MariaDB rotator for `target`. */
export function mysqlRotator(target: RotatorTarget): DatabaseRotator {
  const run = async (from: string, to: string) => {
    checkPassword(to)
    if (target.kind === 'url') return changeByUrl(target.url, from, to)
    return changeInService(target, from, to)
  }
  return {
    name: 'mysql',
    apply: (current, next) => run(current, next),
    revert: (current, next) => run(next, current),
  }
}

function connectionOptions(url: string, password: string) {
  const parsed = new URL(url)
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username),
    password,
    database: parsed.pathname.replace(/^\//, '') || undefined,
    connectTimeout: 10_000,
    // the connector's errors would otherwise quote the statement's parameters: the password
    logParam: false,
  }
}

async function connectAs(url: string, password: string) {
  const mariadb = await import('mariadb')
  return mariadb.createConnection(connectionOptions(url, password))
}

async function setPassword(
  connection: Awaited<ReturnType<typeof connectAs>>,
  password: string,
): Promise<void> {
  const [row] = (await connection.query('SELECT VERSION() AS version')) as { version: string }[]
  const mariadb = /mariadb/i.test(row?.version ?? '')
  await connection.query(mariadb ? 'SET PASSWORD = PASSWORD(?)' : 'SET PASSWORD = ?', [password])
}

function changeByUrl(url: string, from: string, to: string): Promise<void> {
  return changePasswordByUrl(
    {
      rotator: 'mysql',
      hint: 'check --rotator-url (user, host, port); the password comes from the vault',
      connect: (password) => connectAs(url, password),
      setPassword,
    },
    { from, to },
  )
}

const clientScript =
  'if command -v mariadb >/dev/null 2>&1; then exec mariadb "$@"; ' +
  'elif command -v mysql >/dev/null 2>&1; then exec mysql "$@"; ' +
  `else echo 'neither mariadb nor mysql is installed' >&2; exit ${clientMissingExitCode}; fi`

async function changeInService(
  target: { exec: ServiceExec; service: string; user?: string },
  from: string,
  to: string,
): Promise<void> {
  const { exec, service, user } = target
  const args = [
    ...passwordFromStdin('MYSQL_PWD', clientScript),
    '--protocol=TCP',
    '-h',
    '127.0.0.1',
    '-u',
    user ?? 'root',
    '-N',
    '-B',
  ]
  const fromLine = passwordLine(from)
  const toLine = passwordLine(to)
  const version = await exec(service, args, { input: `${fromLine}SELECT VERSION();\n` })
  checkClientPresent('mysql', service, 'mariadb and mysql', version)
  if (version.exitCode !== 0)
    throw new RotatorLoginError(
      `mysql rotator: the client in ${service} failed: ${clientErrorLine(version.stderr)}`,
      { hint: 'check --rotator-service and --rotator-user (default root)' },
    )
  const mariadb = /mariadb/i.test(version.stdout)
  const sql = (password: string) =>
    mariadb
      ? `SET PASSWORD = PASSWORD(${mysqlLiteral(password)});\n`
      : `SET PASSWORD = ${mysqlLiteral(password)};\n`
  const changed = await exec(service, args, { input: `${fromLine}${sql(to)}` })
  if (changed.exitCode !== 0)
    throw new RotatorRefusedError(
      `mysql rotator: the database in ${service} refused the new password: ${clientErrorLine(changed.stderr)}`,
      { hint: refusedHint },
    )
  const check = await exec(service, args, { input: `${toLine}SELECT 1;\n` })
  if (check.exitCode !== 0) {
    await restoreInService(
      'mysql',
      () => exec(service, args, { input: `${toLine}${sql(from)}` }),
      `a fresh login with the new password failed in ${service}: ${clientErrorLine(check.stderr)}`,
    )
  }
}
