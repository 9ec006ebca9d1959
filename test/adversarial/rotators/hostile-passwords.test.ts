/**
 * Hostile new passwords against the built-in rotators, on a real PostgreSQL 15 (scram-sha-256) and a
 * real MariaDB 10.11, through both paths: the URL path (pg; the mariadb connector's placeholders) and
 * the service path (the database's own client fed SQL on stdin, here the host's psql and mariadb run by
 * a local ServiceExec). One row per attack. Properties checked for each: the database now accepts
 * exactly the hostile value and refuses the old one, nothing else in the database changed (a sentinel
 * role / user and the role list survive), and `revert` brings the old password back. A value no path can
 * carry (NUL; a line break for the stdin path) is refused before anything is sent.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mysqlRotator } from '../../../src/rotate/rotators/mysql.js'
import { postgresRotator } from '../../../src/rotate/rotators/postgres.js'
import type { DatabaseRotator, ServiceExec } from '../../../src/rotate/rotators/rotator.js'
import {
  mariadbUnavailableReason,
  rootSql,
  startMariadb,
  stopMariadb,
  type MariadbInfo,
} from '../../harness/mariadb.js'
import {
  postgresUnavailableReason,
  startPostgres,
  stopPostgres,
  type PostgresInfo,
} from '../../harness/postgres.js'
import { mariadbAccepts, postgresAccepts } from '../../helpers/database-login.js'

const reason = mariadbUnavailableReason() ?? postgresUnavailableReason()
if (reason && process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1')
  throw new Error(`VAULT_TEST_REQUIRE_COMPONENTS=1 and the rotator databases are unavailable: ${reason}`)

const attacks: [string, string][] = [
  ['a single quote', "it's"],
  ['quote-terminated injection', "x'; DROP ROLE sentinel; --"],
  ['backslash before the quote (MySQL escapes)', "x\\'; DROP USER sentinel; --"],
  ['a trailing backslash', 'ends with \\'],
  ['double quotes', '"quoted"'],
  ['PostgreSQL dollar quoting', '$$; DROP ROLE sentinel; $$'],
  ['psql meta-command text', '\\! touch /tmp/vault-rotator-pwned'],
  ['URL delimiters', 'p@ss:w/rd%20?#&='],
  ['non-ASCII', 'pässwörd-✓-密码'],
  ['MySQL comment and semicolon', 'a/*b*/;c -- d # e'],
  ['Ctrl-Z (MySQL \\Z)', 'a\u001ab'],
]

/** Runs the "service" command on this host with the port variables set (the host's own clients). */
function localExec(env: Record<string, string>): ServiceExec {
  return (_service, argv, { input }) =>
    new Promise((resolve) => {
      const child = execFile(
        argv[0]!,
        argv.slice(1),
        { env: { PATH: process.env.PATH, ...env } },
        (error, stdout, stderr) =>
          resolve({ exitCode: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      )
      child.stdin!.end(input)
    })
}

describe.skipIf(reason !== undefined)(
  `hostile passwords through the rotators (${reason ?? 'available'})`,
  () => {
    let postgres: PostgresInfo
    let maria: MariadbInfo
    const old = `old-${randomBytes(6).toString('hex')}`

    const pgLogin = (password: string) => postgresAccepts(postgres.port, 'app', password)
    const myLogin = (password: string) => mariadbAccepts(maria.port, 'app', password)
    const pgRoles = async () => {
      const admin = new pg.Client({ connectionString: postgres.url })
      await admin.connect()
      const { rows } = await admin.query('SELECT rolname FROM pg_roles ORDER BY rolname')
      await admin.end()
      return rows.map((row: { rolname: string }) => row.rolname)
    }
    const myUsers = () => rootSql(maria, 'SELECT CONCAT(User, "@", Host) FROM mysql.user ORDER BY 1')

    beforeAll(async () => {
      ;[postgres, maria] = await Promise.all([
        startPostgres({ superuserPassword: randomBytes(12).toString('hex') }),
        startMariadb(),
      ])
      const admin = new pg.Client({ connectionString: postgres.url })
      await admin.connect()
      await admin.query(`CREATE ROLE app LOGIN PASSWORD '${old}'`)
      await admin.query(`CREATE ROLE sentinel`)
      await admin.end()
      rootSql(
        maria,
        `CREATE USER 'app'@'127.0.0.1' IDENTIFIED BY '${old}'; CREATE USER 'sentinel'@'localhost'`,
      )
    }, 120_000)

    afterAll(async () => {
      await Promise.allSettled([
        postgres ? stopPostgres(postgres) : undefined,
        maria ? stopMariadb(maria) : undefined,
      ])
    })

    const paths = (): [
      string,
      DatabaseRotator,
      (password: string) => Promise<boolean>,
      () => Promise<unknown>,
    ][] => [
      [
        'postgres by URL',
        postgresRotator({ kind: 'url', url: `postgres://app@127.0.0.1:${postgres.port}/postgres` }),
        pgLogin,
        pgRoles,
      ],
      [
        'postgres in a service',
        postgresRotator({
          kind: 'service',
          service: 'db',
          user: 'app',
          exec: localExec({ PGPORT: String(postgres.port) }),
        }),
        pgLogin,
        pgRoles,
      ],
      [
        'mysql by URL',
        mysqlRotator({ kind: 'url', url: `mysql://app@127.0.0.1:${maria.port}` }),
        myLogin,
        async () => myUsers(),
      ],
      [
        'mysql in a service',
        mysqlRotator({
          kind: 'service',
          service: 'db',
          user: 'app',
          exec: localExec({ MYSQL_TCP_PORT: String(maria.port) }),
        }),
        myLogin,
        async () => myUsers(),
      ],
    ]

    it.each(attacks)(
      '%s: the database accepts exactly the value, nothing else changes, revert restores',
      async (_attack, hostile) => {
        for (const [path, rotator, login, inventory] of paths()) {
          const before = await inventory()
          await rotator.apply(old, hostile)
          expect(await login(hostile), `${path}: login with the new value`).toBe(true)
          expect(await login(old), `${path}: the old value is refused`).toBe(false)
          expect(await inventory(), `${path}: roles / users unchanged`).toEqual(before)
          await rotator.revert(old, hostile)
          expect(await login(old), `${path}: revert`).toBe(true)
        }
      },
    )

    it('a NUL is refused before anything is sent; a line break is refused on the stdin path', async () => {
      for (const [path, rotator, login] of paths()) {
        await expect(rotator.apply(old, 'a\0b'), path).rejects.toThrow()
        expect(await login(old), path).toBe(true)
      }
      for (const index of [1, 3]) {
        const [path, service, login] = paths()[index]!
        await expect(service.apply(old, 'line\nbreak'), path).rejects.toThrow(/line break/)
        expect(await login(old), path).toBe(true)
      }
    })
  },
)
