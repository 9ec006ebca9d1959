/**
 * Issue 16's acceptance on real third-party stacks (test/fixtures/stacks, each with its SOURCE line) and
 * the private engine: the stack runs under the legacy layout (vault credentials in .env), is migrated
 * (`doctor --fix`, `secrets import .env --move`), runs again, and has a secret rotated with a built-in
 * rotator against a real database (a private scram-sha-256 PostgreSQL, a private MariaDB) and readiness.
 * Properties: every container's environment is identical before and after the migration apart from the
 * VAULT_ variables, and no container holds one afterwards (canary: the client secret); `render --check`
 * finds the leak before and nothing after; the rotation reaches every service that used the value,
 * `env_file: .env` consumers included; the database accepts the new password only.
 * Images come from no registry: each service runs the harness's busybox with network_mode none.
 */
import { randomBytes } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import mariadb from 'mariadb'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import {
  mariadbUnavailableReason,
  rootSql,
  startMariadb,
  stopMariadb,
  type MariadbInfo,
} from '../harness/mariadb.js'
import { parseEnvFile } from '../../src/compose/env-file.js'
import { writeCredentialsFile } from '../../src/client/credentials-file.js'
import { buildClientImage } from '../harness/client-image.js'
import { startPostgres, stopPostgres, type PostgresInfo } from '../harness/postgres.js'
import { runCli } from '../helpers/cli.js'
import { runVault } from '../helpers/run-vault.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { containerEnvironments, forPrivateEngine, keepAlive } from '../helpers/private-engine-stack.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'
import { mariadbAccepts, postgresAccepts } from '../helpers/database-login.js'

const engine = engineOrNull()
const mariadbMissing = mariadbUnavailableReason()
if (mariadbMissing && process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1')
  throw new Error(`VAULT_TEST_REQUIRE_COMPONENTS=1 and MariaDB is unavailable: ${mariadbMissing}`)
const fixtures = fileURLToPath(new URL('../fixtures/stacks/', import.meta.url))

interface StackCase {
  dir: string
  composeFile: string
  /** The secrets moved from .env into the vault. */
  secrets: string[]
  rotate: { name: string; rotator: 'postgres' | 'mysql'; user: string; services: string[] }
  /** Other secrets the published .env gives the same value: rotate refuses (exit 6) until --force. */
  copies?: string[]
}

const stacks: StackCase[] = [
  {
    dir: 'wordpress-mysql',
    composeFile: 'compose.yaml',
    secrets: ['MYSQL_ROOT_PASSWORD', 'MYSQL_PASSWORD'],
    rotate: {
      name: 'MYSQL_PASSWORD',
      rotator: 'mysql',
      user: 'wordpress',
      services: ['db', 'phpmyadmin', 'wordpress'],
    },
  },
  {
    dir: 'nextcloud-postgres',
    composeFile: 'compose.yaml',
    secrets: ['POSTGRES_PASSWORD'],
    rotate: { name: 'POSTGRES_PASSWORD', rotator: 'postgres', user: 'nextcloud', services: ['db', 'nc'] },
  },
  {
    dir: 'postgresql-pgadmin',
    composeFile: 'compose.yaml',
    secrets: ['POSTGRES_PW', 'PGADMIN_PW'],
    rotate: { name: 'POSTGRES_PW', rotator: 'postgres', user: 'yourUser', services: ['postgres'] },
    // the published .env gives both passwords `changeit`
    copies: ['PGADMIN_PW'],
  },
  {
    dir: 'immich',
    composeFile: 'docker-compose.yml',
    secrets: ['DB_PASSWORD'],
    rotate: {
      name: 'DB_PASSWORD',
      rotator: 'postgres',
      user: 'postgres',
      services: ['database', 'immich-machine-learning', 'immich-server'],
    },
  },
]

describe.skipIf(!engine || mariadbMissing)(
  `third-party stacks migrated end to end (${engine ? (mariadbMissing ?? 'available') : unavailableReason('engine')})`,
  () => {
    let server: TestVault
    let home: TempHome
    let postgres: PostgresInfo
    let maria: MariadbInfo
    const work = mkdtempSync('/tmp/vault-3p-')

    const projectOf = (stack: StackCase) => `tp${stack.dir.replace(/[^a-z0-9]/g, '')}`
    const envFor = (stack: StackCase) => ({
      ...home.env,
      DOCKER_HOST: engine!.dockerHost,
      COMPOSE_PROJECT_NAME: projectOf(stack),
    })
    /** `vault run` spawned (docker-compose is its child); the other commands in this process. */
    const vault = (stack: StackCase, args: string[], input?: string) =>
      runVault(args, { env: envFor(stack), cwd: join(work, stack.dir), input, timeout: 180_000 })
    /** Every service's container environment (Config.Env), by service. */
    const environments = (stack: StackCase) => containerEnvironments(engine!.dockerHost, projectOf(stack))
    const withoutVault = (envs: Record<string, Record<string, string>>) =>
      Object.fromEntries(
        Object.entries(envs).map(([service, env]) => [
          service,
          Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('VAULT_'))),
        ]),
      )
    const myLogin = (user: string, password: string) => mariadbAccepts(maria.port, user, password)
    const pgLogin = (user: string, password: string) => postgresAccepts(postgres.port, user, password)
    const login = async (stack: StackCase, password: string) => {
      if (stack.rotate.rotator === 'mysql') {
        try {
          const connection = await mariadb.createConnection({
            host: '127.0.0.1',
            port: maria.port,
            user: stack.rotate.user,
            password,
          })
          await connection.end()
          return true
        } catch {
          return false
        }
      }
      const client = new pg.Client({
        host: '127.0.0.1',
        port: postgres.port,
        user: stack.rotate.user,
        password,
        database: 'postgres',
      })
      try {
        await client.connect()
        return true
      } catch {
        return false
      } finally {
        await client.end().catch(() => undefined)
      }
    }

    beforeAll(async () => {
      ;[server, postgres, maria] = await Promise.all([
        startVaultServer({}),
        startPostgres({ superuserPassword: randomBytes(12).toString('hex') }),
        startMariadb(),
      ])
      home = createTempHome()
      const admin = new pg.Client({ connectionString: postgres.url })
      await admin.connect()
      await admin.query(`CREATE ROLE nextcloud LOGIN PASSWORD 'nextcloud'`)
      await admin.query(`CREATE ROLE "yourUser" LOGIN PASSWORD 'changeit'`)
      await admin.query(`ALTER ROLE postgres PASSWORD 'postgres'`)
      await admin.end()
      rootSql(maria, `CREATE USER 'wordpress'@'127.0.0.1' IDENTIFIED BY 'wordpress'`)
      const credentials = server.deploymentCredentials
      for (const stack of stacks) {
        const dir = join(work, stack.dir)
        cpSync(join(fixtures, stack.dir), dir, { recursive: true })
        const composePath = join(dir, stack.composeFile)
        writeFileSync(composePath, forPrivateEngine(readFileSync(composePath, 'utf8'), engine!.busyboxImage))
        const legacy = [
          `VAULT_DOMAIN=${server.url}`,
          `VAULT_PROJECT_ID=${server.projectId}`,
          `VAULT_CLIENT_ID=${credentials.clientId}`,
          `VAULT_CLIENT_SECRET=${credentials.clientSecret}`,
        ]
        writeFileSync(
          join(dir, '.env'),
          `${readFileSync(join(dir, '.env'), 'utf8').trimEnd()}\n${legacy.join('\n')}\n`,
          { mode: 0o600 },
        )
      }
    }, 180_000)

    afterAll(async () => {
      for (const stack of stacks) {
        await runCli(['run', '--env', 'dev', '--', 'docker-compose', 'down', '-t', '1'], {
          env: envFor(stack),
          cwd: join(work, stack.dir),
        }).catch(() => undefined)
      }
      await Promise.allSettled([
        server?.stop(),
        postgres ? stopPostgres(postgres) : undefined,
        maria ? stopMariadb(maria) : undefined,
      ])
      rmSync(work, { recursive: true, force: true })
      home?.cleanup()
    })

    it('--rotator-service runs the database client inside the compose service (psql, mariadb)', async () => {
      buildClientImage(engine!.dockerHost, 'vault-test/dbclient:latest')
      const dir = join(work, 'dbclient')
      mkdirSync(dir)
      writeFileSync(
        join(dir, 'docker-compose.yml'),
        stringify({
          version: '2.4',
          services: {
            database: {
              image: 'vault-test/dbclient:latest',
              network_mode: 'host',
              command: keepAlive,
              environment: {
                PGPORT: String(postgres.port),
                MYSQL_TCP_PORT: String(maria.port),
                PG_PASSWORD: '${SVC_PG_PASSWORD}',
                MY_PASSWORD: '${SVC_MY_PASSWORD}',
              },
            },
          },
        }),
      )
      writeCredentialsFile(dir, {
        ...deploymentVariables(server),
      })
      const admin = new pg.Client({
        host: '127.0.0.1',
        port: postgres.port,
        user: 'postgres',
        password: 'postgres',
        database: 'postgres',
      })
      await admin.connect()
      await admin.query(`CREATE ROLE svc LOGIN PASSWORD 'svc-pg-old'`)
      await admin.end()
      rootSql(maria, `CREATE USER 'svc'@'127.0.0.1' IDENTIFIED BY 'svc-my-old'`)
      const env = { ...home.env, DOCKER_HOST: engine!.dockerHost, COMPOSE_PROJECT_NAME: 'tpdbclient' }
      const run = (args: string[], input?: string) =>
        runVault(args, { env, cwd: dir, input, timeout: 180_000 })
      expect(
        (await run(['secrets', 'set', 'SVC_PG_PASSWORD', '--env', 'staging'], 'svc-pg-old')).exitCode,
      ).toBe(0)
      expect(
        (await run(['secrets', 'set', 'SVC_MY_PASSWORD', '--env', 'staging'], 'svc-my-old')).exitCode,
      ).toBe(0)
      expect((await run(['run', '--env', 'staging', '--', 'docker-compose', 'up', '-d'])).exitCode).toBe(0)
      for (const [name, rotator, check] of [
        ['SVC_PG_PASSWORD', 'postgres', (password: string) => pgLogin('svc', password)],
        ['SVC_MY_PASSWORD', 'mysql', (password: string) => myLogin('svc', password)],
      ] as const) {
        const old = (await run(['secrets', 'get', name, '--env', 'staging'])).stdout
        const result = await run([
          'rotate',
          name,
          '--env',
          'staging',
          '--rotator',
          rotator,
          '--rotator-service',
          'database',
          '--rotator-user',
          'svc',
          '--stable',
          '1',
          '--json',
        ])
        expect(result.exitCode, result.stderr).toBe(0)
        expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'rotated', rotator, healthy: true })
        const value = (await run(['secrets', 'get', name, '--env', 'staging'])).stdout
        expect(await check(value)).toBe(true)
        expect(await check(old)).toBe(false)
        expect(result.stdout + result.stderr).not.toContain(value)
      }
      await run(['run', '--env', 'staging', '--', 'docker-compose', 'down', '-t', '1'])
    })

    describe.each(stacks)('$dir', (stack) => {
      it('migrates with identical container environments apart from VAULT_, then rotates with a rotator and readiness', async () => {
        const secret = server.deploymentCredentials.clientSecret
        const up = () => vault(stack, ['run', '--env', 'dev', '--', 'docker-compose', 'up', '-d'])

        const first = await up()
        expect(first.exitCode, first.stderr).toBe(0)
        const before = environments(stack)
        const leaked = await vault(stack, ['render', '--check', '--env', 'dev', '--json'])
        const leakedServices = JSON.stringify(before).includes(secret)
        expect(leakedServices).toBe(stack.dir === 'immich')
        expect(leaked.exitCode).toBe(leakedServices ? 10 : 0)

        const fix = await vault(stack, ['doctor', '--fix', '--env', 'dev', '--json'])
        expect(JSON.parse(fix.stdout).checks).toContainEqual(
          expect.objectContaining({ id: 'fix-credentials', status: 'pass' }),
        )
        const imported = await vault(stack, [
          'secrets',
          'import',
          '.env',
          '--env',
          'dev',
          '--only',
          stack.secrets.join(','),
          '--move',
          '--json',
        ])
        expect(imported.exitCode, imported.stderr).toBe(0)
        const report = JSON.parse(imported.stdout) as {
          moved: string[]
          secrets: { name: string; services: string[] }[]
        }
        expect(report.moved).toEqual(stack.secrets)
        expect(report.secrets.find((entry) => entry.name === stack.rotate.name)?.services).toEqual(
          stack.rotate.services,
        )
        const dotenv = readFileSync(join(work, stack.dir, '.env'), 'utf8')
        expect(dotenv).not.toContain(secret)

        const check = await vault(stack, ['render', '--check', '--env', 'dev', '--json'])
        expect(
          JSON.parse(check.stdout).problems.filter((problem: { level: string }) => problem.level === 'error'),
        ).toEqual([])
        const who = await vault(stack, ['render', '--who-uses', stack.rotate.name, '--env', 'dev', '--json'])
        const users = [
          ...new Set(JSON.parse(who.stdout).references.map((site: { service: string }) => site.service)),
        ]
          .filter(Boolean)
          .sort()
        expect(users).toEqual(stack.rotate.services)

        const second = await up()
        expect(second.exitCode, second.stderr).toBe(0)
        const after = environments(stack)
        expect(after).toEqual(withoutVault(before))
        expect(JSON.stringify(after)).not.toContain(secret)

        const url =
          stack.rotate.rotator === 'mysql'
            ? `mysql://${stack.rotate.user}@127.0.0.1:${maria.port}`
            : `postgres://${stack.rotate.user}@127.0.0.1:${postgres.port}/postgres`
        const old = parseEnvFile(readFileSync(join(fixtures, stack.dir, '.env'), 'utf8'), () => undefined)[
          stack.rotate.name
        ]!
        const rotateArgs = [
          'rotate',
          stack.rotate.name,
          '--env',
          'dev',
          '--rotator',
          stack.rotate.rotator,
          '--rotator-url',
          url,
          '--stable',
          '1',
          '--json',
        ]
        if (stack.copies) {
          const refused = await vault(stack, rotateArgs)
          expect(refused.exitCode, refused.stderr).toBe(6)
          for (const copy of stack.copies) expect(refused.stdout + refused.stderr).toContain(copy)
          expect(refused.stdout + refused.stderr).not.toContain(old)
          const held = await vault(stack, ['secrets', 'get', stack.rotate.name, '--env', 'dev'])
          expect(held.stdout.trim()).toBe(old)
        }
        const rotated = await vault(stack, stack.copies ? [...rotateArgs, '--force'] : rotateArgs)
        expect(rotated.exitCode, rotated.stderr).toBe(0)
        const result = JSON.parse(rotated.stdout)
        expect(result).toMatchObject({
          outcome: 'rotated',
          vaultHolds: 'new',
          healthy: true,
          rotator: stack.rotate.rotator,
        })
        expect(result.services.map((service: { service: string }) => service.service)).toEqual(
          stack.rotate.services,
        )
        const value = (await vault(stack, ['secrets', 'get', stack.rotate.name, '--env', 'dev'])).stdout
        const now = environments(stack)
        for (const service of stack.rotate.services) expect(Object.values(now[service]!)).toContain(value)
        expect(await login(stack, value)).toBe(true)
        expect(await login(stack, old)).toBe(false)
      })
    })
  },
)
