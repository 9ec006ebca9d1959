/**
 * The PostgreSQL rotator: `ALTER ROLE CURRENT_USER PASSWORD '...'` authenticated with the current
 * password, through a URL (the `pg` client; any password in the URL is ignored) or through `psql` inside
 * the compose service (`compose exec -T`, the SQL on stdin so the value is never in an argv). A fresh
 * login with the new password must succeed before the vault changes; if it fails, the session that
 * changed the password puts the old one back.
 */
import {
  checkClientPresent,
  clientErrorLine,
  RotatorLoginError,
  RotatorPasswordError,
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

/** A SQL string literal (standard_conforming_strings: only the quote is doubled; E'' is never used). */
export function sqlLiteral(value: string): string {
  if (value.includes('\0')) throw new RotatorPasswordError('a password cannot hold a NUL character')
  return `'${value.replaceAll("'", "''")}'`
}

const alterSql = (password: string) => `ALTER ROLE CURRENT_USER PASSWORD ${sqlLiteral(password)}`

/** The PostgreSQL rotator for `target`. */
export function postgresRotator(target: RotatorTarget): DatabaseRotator {
  const change =
    target.kind === 'url' ? (from: string, to: string) => changeByUrl(target.url, from, to) : undefined
  const byService = target.kind === 'service' ? target : undefined
  const run = async (from: string, to: string) => {
    checkPassword(to)
    if (change) return change(from, to)
    return changeInService(byService!, from, to)
  }
  return {
    name: 'postgres',
    apply: (current, next) => run(current, next),
    revert: (current, next) => run(next, current),
  }
}

async function connectAs(url: string, password: string) {
  const { default: pg } = await import('pg')
  const withPassword = new URL(url)
  withPassword.password = encodeURIComponent(password)
  const client = new pg.Client({ connectionString: withPassword.href, connectionTimeoutMillis: 10_000 })
  client.on('error', () => undefined)
  await client.connect()
  return client
}

function changeByUrl(url: string, from: string, to: string): Promise<void> {
  return changePasswordByUrl(
    {
      rotator: 'postgres',
      hint: 'check --rotator-url (user, host, database); the password comes from the vault',
      connect: (password) => connectAs(url, password),
      setPassword: async (session, password) => {
        await session.query(alterSql(password))
      },
    },
    { from, to },
  )
}

/**
 * psql inside the service: one session changes the password, a second one checks it; the password
 * reaches psql as PGPASSWORD read from the first stdin line, the SQL follows on stdin.
 */
async function changeInService(
  target: { exec: ServiceExec; service: string; user?: string },
  from: string,
  to: string,
): Promise<void> {
  const { exec, service, user } = target
  const args = [
    ...passwordFromStdin('PGPASSWORD', 'exec psql "$@"'),
    '-v',
    'ON_ERROR_STOP=1',
    '-h',
    '127.0.0.1',
    '-X',
    '-q',
    '-d',
    'postgres',
    ...(user ? ['-U', user] : []),
  ]
  const fromLine = passwordLine(from)
  const toLine = passwordLine(to)
  const changed = await exec(service, args, { input: `${fromLine}${alterSql(to)};\n` })
  checkClientPresent('postgres', service, 'psql', changed)
  // psql exits 3 when a statement of its script failed (ON_ERROR_STOP), 2 when it could not connect
  if (changed.exitCode === 3)
    throw new RotatorRefusedError(
      `postgres rotator: the database in ${service} refused the new password: ${clientErrorLine(changed.stderr)}`,
      { hint: refusedHint },
    )
  if (changed.exitCode !== 0)
    throw new RotatorLoginError(
      `postgres rotator: psql in ${service} failed: ${clientErrorLine(changed.stderr)}`,
      {
        hint: 'check --rotator-service and --rotator-user; the database must accept the current password on 127.0.0.1',
      },
    )
  const check = await exec(service, args, { input: `${toLine}SELECT 1;\n` })
  if (check.exitCode !== 0) {
    await restoreInService(
      'postgres',
      () => exec(service, args, { input: `${toLine}${alterSql(from)};\n` }),
      `a fresh login with the new password failed in ${service}: ${clientErrorLine(check.stderr)}`,
    )
  }
}
