/**
 * The built-in rotators against real databases: a private PostgreSQL 15 with scram-sha-256 (so passwords
 * matter) and a private MariaDB 10.11, driven through the CLI's commands (in this process) and a real
 * vault server over HTTP. Properties:
 * after `vault rotate --rotator ...` the database accepts only the new password and the vault holds it;
 * when the vault refuses the new value (a read-only identity) the database accepts the old password
 * again and the vault is unchanged; when the vault's current value is not the database's, or the
 * database refuses the change (read-only), nothing changes, and `--json` names the rotator's ERR_ code.
 */
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  mariadbUnavailableReason,
  rootSql,
  startMariadb,
  stopMariadb,
  type MariadbInfo,
} from '../harness/mariadb.js'
import {
  postgresUnavailableReason,
  startPostgres,
  stopPostgres,
  type PostgresInfo,
} from '../harness/postgres.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type ClientCredentials, type TestVault } from '../helpers/vault-server.js'
import { mariadbAccepts, postgresAccepts } from '../helpers/database-login.js'

const reason = mariadbUnavailableReason() ?? postgresUnavailableReason()
if (reason && process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1')
  throw new Error(`VAULT_TEST_REQUIRE_COMPONENTS=1 and the rotator databases are unavailable: ${reason}`)

describe.skipIf(reason !== undefined)(
  `built-in rotators on real databases (${reason ?? 'available'})`,
  () => {
    let server: TestVault
    let home: TempHome
    let postgres: PostgresInfo
    let maria: MariadbInfo
    let readOnly: ClientCredentials
    const pgOld = `pg-old-${randomBytes(6).toString('hex')}`
    const myOld = `my-old-${randomBytes(6).toString('hex')}`

    const env = (credentials: ClientCredentials = server.deploymentCredentials) => ({
      ...home.env,
      VAULT_DOMAIN: server.url,
      VAULT_PROJECT_ID: server.projectId,
      VAULT_CLIENT_ID: credentials.clientId,
      VAULT_CLIENT_SECRET: credentials.clientSecret,
    })
    const vault = (args: string[], input?: string, credentials?: ClientCredentials) =>
      runCommandLine(args, { env: env(credentials), cwd: home.dir, input })
    const stored = async (name: string) => (await vault(['secrets', 'get', name, '--env', 'dev'])).stdout
    const pgUrl = () => `postgres://app@127.0.0.1:${postgres.port}/postgres`
    const myUrl = () => `mysql://app@127.0.0.1:${maria.port}`
    const pgLogin = (password: string) => postgresAccepts(postgres.port, 'app', password)
    const myLogin = (password: string) => mariadbAccepts(maria.port, 'app', password)

    /** Makes the database refuse a password change by `app` (PostgreSQL: its sessions read-only). */
    const readOnlyDatabase = async (rotator: string, on: boolean) => {
      if (rotator === 'mysql') {
        rootSql(maria, `SET GLOBAL read_only = ${on ? 1 : 0}`)
        return
      }
      const admin = new pg.Client({ connectionString: postgres.url })
      await admin.connect()
      try {
        await admin.query(
          on ? 'ALTER ROLE app SET default_transaction_read_only = on' : 'ALTER ROLE app RESET ALL',
        )
      } finally {
        await admin.end()
      }
    }

    beforeAll(async () => {
      const superuser = randomBytes(12).toString('hex')
      ;[server, postgres, maria] = await Promise.all([
        startVaultServer({}),
        startPostgres({ superuserPassword: superuser }),
        startMariadb(),
      ])
      home = createTempHome()
      const admin = new pg.Client({ connectionString: postgres.url })
      await admin.connect()
      await admin.query(`CREATE ROLE app LOGIN PASSWORD '${pgOld}'`)
      await admin.end()
      rootSql(maria, `CREATE USER 'app'@'127.0.0.1' IDENTIFIED BY '${myOld}'`)
      readOnly = await server.createIdentity('read-only', { dev: ['read'] })
      expect((await vault(['secrets', 'set', 'DB_PASSWORD', '--env', 'dev'], pgOld)).exitCode).toBe(0)
      expect((await vault(['secrets', 'set', 'MYSQL_PASSWORD', '--env', 'dev'], myOld)).exitCode).toBe(0)
    }, 120_000)

    afterAll(async () => {
      await Promise.allSettled([
        server?.stop(),
        postgres ? stopPostgres(postgres) : undefined,
        maria ? stopMariadb(maria) : undefined,
      ])
      if (home) rmSync(home.dir, { recursive: true, force: true })
    })

    describe.each([
      ['postgres', 'DB_PASSWORD', () => pgUrl(), (password: string) => pgLogin(password), () => pgOld],
      ['mysql', 'MYSQL_PASSWORD', () => myUrl(), (password: string) => myLogin(password), () => myOld],
    ] as const)('--rotator %s', (rotator, name, url, login, initial) => {
      /** `vault rotate NAME --env dev --rotator ROTATOR --rotator-url URL --no-restart` plus `extra`. */
      const rotateByUrl = (extra: string[] = [], identity?: ClientCredentials) =>
        vault(
          [
            'rotate',
            name,
            '--env',
            'dev',
            '--rotator',
            rotator,
            '--rotator-url',
            url(),
            '--no-restart',
            ...extra,
          ],
          undefined,
          identity,
        )

      it('a read-only identity: the vault refuses, and the database takes the old password back', async () => {
        const result = await rotateByUrl([], readOnly)
        expect(result.exitCode).toBe(4)
        expect(result.stderr).toMatch(/the old password is back inside the database/)
        expect(await stored(name)).toBe(initial())
        expect(await login(initial())).toBe(true)
      })

      it('changes the password inside the database, proves the login, then the vault holds it', async () => {
        const result = await rotateByUrl(['--json'])
        expect(result.exitCode).toBe(0)
        expect(JSON.parse(result.stdout)).toMatchObject({ rotator, vaultHolds: 'new', outcome: 'rotated' })
        const now = await stored(name)
        expect(now).not.toBe(initial())
        expect(await login(now)).toBe(true)
        expect(await login(initial())).toBe(false)
        expect(result.stdout + result.stderr).not.toContain(now)
      })

      it('when the vault value is not the database password, nothing changes', async () => {
        const real = await stored(name)
        expect((await vault(['secrets', 'set', name, '--env', 'dev'], 'not-the-password')).exitCode).toBe(0)
        const result = await rotateByUrl()
        expect(result.exitCode).toBe(7)
        expect(result.stderr).toMatch(/cannot log in with the current password/)
        const json = await rotateByUrl(['--json'])
        expect(json.exitCode).toBe(7)
        expect(JSON.parse(json.stdout)).toMatchObject({
          error: { name: 'RotatorLoginError', code: 'ERR_ROTATOR_LOGIN', exitCode: 7 },
        })
        expect(await stored(name)).toBe('not-the-password')
        expect(await login(real)).toBe(true)
        expect((await vault(['secrets', 'set', name, '--env', 'dev'], real)).exitCode).toBe(0)
      })

      it('when the database refuses the change (read-only), nothing changes: ERR_ROTATOR_REFUSED, exit 10', async () => {
        const real = await stored(name)
        await readOnlyDatabase(rotator, true)
        try {
          const result = await rotateByUrl(['--json'])
          expect(result.exitCode).toBe(10)
          const { error } = JSON.parse(result.stdout) as { error: { message: string } }
          expect(error).toMatchObject({
            name: 'RotatorRefusedError',
            code: 'ERR_ROTATOR_REFUSED',
            exitCode: 10,
          })
          expect(error.message).toMatch(/refused the new password: .*read.only/i)
        } finally {
          await readOnlyDatabase(rotator, false)
        }
        expect(await stored(name)).toBe(real)
        expect(await login(real)).toBe(true)
      })

      it('secrets rollback --rotator sets the database password to the rolled-back value', async () => {
        const versions = async () =>
          JSON.parse((await vault(['secrets', 'history', name, '--env', 'dev', '--json'])).stdout) as {
            versions: { version: number }[]
          }
        expect((await rotateByUrl()).exitCode).toBe(0)
        const newer = await stored(name)
        const latest = Math.max(...(await versions()).versions.map((entry) => entry.version))
        const rollback = await vault([
          'secrets',
          'rollback',
          name,
          String(latest - 1),
          '--env',
          'dev',
          '--rotator',
          rotator,
          '--rotator-url',
          url(),
          '--json',
        ])
        expect(rollback.exitCode).toBe(0)
        expect(JSON.parse(rollback.stdout)).toMatchObject({ name, version: latest + 1 })
        const earlier = await stored(name)
        expect(earlier).not.toBe(newer)
        expect(await login(earlier)).toBe(true)
        expect(await login(newer)).toBe(false)
        expect(rollback.stdout + rollback.stderr).not.toContain(earlier)
        expect(rollback.stdout + rollback.stderr).not.toContain(newer)
      })

      it('secrets rollback without --rotator warns that the database holds the newer value', async () => {
        expect((await rotateByUrl()).exitCode).toBe(0)
        const newer = await stored(name)
        const history = JSON.parse(
          (await vault(['secrets', 'history', name, '--env', 'dev', '--json'])).stdout,
        )
        const latest = Math.max(...history.versions.map((entry: { version: number }) => entry.version))
        const rollback = await vault(['secrets', 'rollback', name, String(latest - 1), '--env', 'dev'])
        expect(rollback.exitCode).toBe(0)
        expect(rollback.stderr).toContain(
          `Warning: ${name} is a database password and the database still holds the newer value (version ${latest}'s)`,
        )
        expect(rollback.stderr).toContain(`--rotator ${name === 'DB_PASSWORD' ? 'postgres|mysql' : 'mysql'}`)
        expect(await login(newer)).toBe(true)
        expect((await vault(['secrets', 'rollback', name, String(latest), '--env', 'dev'])).exitCode).toBe(0)
        expect(await stored(name)).toBe(newer)
      })
    })
  },
)
