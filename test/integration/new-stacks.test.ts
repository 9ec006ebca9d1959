/**
 * Issue 35's acceptance on three published stacks (test/fixtures/stacks, each with its SOURCE): langfuse
 * (CHANGEME defaults, DATABASE_URL holding the database password, one MinIO password behind several
 * variables), Twenty (PG_DATABASE_URL built from PG_DATABASE_PASSWORD in two services, a placeholder
 * APP_SECRET) and Kong (the database password a compose secret). Each goes through `secrets init --dry-run`
 * (the plan), `secrets init`, `render --check`, `vault run -- docker-compose up -d` on the private engine
 * (every container's exact environment and secret files), `rotate` with the postgres rotator against a
 * private scram-sha-256 PostgreSQL initialised with what the vault held (the recreated containers hold the
 * new value, URLs included; the database takes the new password and refuses the old), and
 * `secrets rollback --rotator postgres` (the database takes the earlier value again; the vault holds it).
 * Images come from no registry: each service runs the harness's busybox with network_mode none.
 */
import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { writeCredentialsFile } from '../../src/client/credentials-file.js'
import { startPostgres, stopPostgres, type PostgresInfo } from '../harness/postgres.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { containerEnvironments, containerFile, forPrivateEngine } from '../helpers/private-engine-stack.js'
import { runVault } from '../helpers/run-vault.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'
import { postgresAccepts } from '../helpers/database-login.js'

const engine = engineOrNull()
const fixtures = fileURLToPath(new URL('../fixtures/stacks/', import.meta.url))

type PlanEntry = { name: string; action: string; reason: string; template?: string }
type Environments = Record<string, Record<string, string>>

describe.skipIf(!engine)(
  `published stacks end to end (${engine ? 'available' : unavailableReason('engine')})`,
  () => {
    let server: TestVault
    let home: TempHome
    const work = mkdtempSync('/tmp/vault-newstacks-')
    const databases: PostgresInfo[] = []

    const projectOf = (dir: string) => `ns${dir.replace(/[^a-z0-9]/g, '')}`
    /** One vault environment per stack: they share the project, and each has its own secrets. */
    const envOf: Record<string, string> = { langfuse: 'dev', twenty: 'staging', kong: 'prod' }
    const envFor = (dir: string, extra: Record<string, string> = {}) => ({
      ...home.env,
      DOCKER_HOST: engine!.dockerHost,
      COMPOSE_PROJECT_NAME: projectOf(dir),
      ...extra,
    })
    /** `vault run` spawned (its child, docker-compose, gets the stack's environment); the rest in this process. */
    const vault = (dir: string, args: string[], extra: Record<string, string> = {}) =>
      runVault(args, { env: envFor(dir, extra), cwd: join(work, dir), timeout: 180_000 })
    const ok = async (dir: string, args: string[], extra: Record<string, string> = {}) => {
      const result = await vault(dir, args, extra)
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}${result.stdout}`).toBe(0)
      return result
    }
    const exported = async (dir: string) =>
      JSON.parse((await ok(dir, ['export', '--env', envOf[dir]!, '--format', 'json'])).stdout) as Record<
        string,
        string
      >
    const planOf = async (dir: string, args: string[] = []) => {
      const dry = await ok(dir, ['secrets', 'init', '--env', envOf[dir]!, '--dry-run', '--json', ...args])
      return Object.fromEntries(
        (JSON.parse(dry.stdout).plan as PlanEntry[]).map((entry) => [entry.name, entry]),
      )
    }
    const findings = async (dir: string, extra: Record<string, string> = {}) => {
      const check = await vault(dir, ['render', '--check', '--env', envOf[dir]!, '--json'], extra)
      return {
        exitCode: check.exitCode,
        problems: JSON.parse(check.stdout).problems as {
          level: string
          code: string
          message: string
          variable?: string
        }[],
      }
    }
    const pgLogin = (database: PostgresInfo, user: string, password: string) =>
      postgresAccepts(database.port, user, password)
    const environments = (dir: string): Environments =>
      containerEnvironments(engine!.dockerHost, projectOf(dir))
    /** Rotates `name` with the postgres rotator, then rolls it back to version 1; returns the three values. */
    const rotateAndRollBack = async (
      dir: string,
      name: string,
      user: string,
      database: PostgresInfo,
      extra: Record<string, string> = {},
      /** Checks on the recreated containers right after the rotation (the new value). */
      afterRotate: (value: string) => void = () => undefined,
    ) => {
      const url = `postgres://${user}@127.0.0.1:${database.port}/postgres`
      const old = (await exported(dir))[name]!
      const rotated = await ok(
        dir,
        [
          'rotate',
          name,
          '--env',
          envOf[dir]!,
          '--rotator',
          'postgres',
          '--rotator-url',
          url,
          '--stable',
          '1',
          '--json',
        ],
        extra,
      )
      const result = JSON.parse(rotated.stdout)
      const value = (await exported(dir))[name]!
      expect(value).not.toBe(old)
      expect(result).toMatchObject({
        outcome: 'rotated',
        vaultHolds: 'new',
        healthy: true,
        rotator: 'postgres',
      })
      expect(rotated.stdout + rotated.stderr).not.toContain(value)
      expect(await pgLogin(database, user, value)).toBe(true)
      expect(await pgLogin(database, user, old)).toBe(false)
      const afterRotation = environments(dir)
      afterRotate(value)
      const rolled = await ok(
        dir,
        [
          'secrets',
          'rollback',
          name,
          '1',
          '--env',
          envOf[dir]!,
          '--rotator',
          'postgres',
          '--rotator-url',
          url,
          '--json',
        ],
        extra,
      )
      expect(rolled.stdout + rolled.stderr).not.toContain(old)
      expect(rolled.stderr).toContain(
        `still hold the newer value of ${name}, which the database no longer accepts: recreate them (vault run --env ${envOf[dir]!} -- docker-compose up -d --force-recreate)`,
      )
      expect((await exported(dir))[name]).toBe(old)
      expect(await pgLogin(database, user, old)).toBe(true)
      expect(await pgLogin(database, user, value)).toBe(false)
      return {
        old,
        value,
        services: (result.services as { service: string }[]).map((entry) => entry.service),
        afterRotation,
        rolled: JSON.parse(rolled.stdout),
      }
    }
    const prepare = (dir: string, composeFile = 'docker-compose.yml') => {
      const target = join(work, dir)
      cpSync(join(fixtures, dir), target, { recursive: true })
      const composePath = join(target, composeFile)
      writeFileSync(composePath, forPrivateEngine(readFileSync(composePath, 'utf8'), engine!.busyboxImage))
      writeCredentialsFile(target, {
        ...deploymentVariables(server),
      })
    }

    beforeAll(async () => {
      server = await startVaultServer({})
      home = createTempHome()
      for (const dir of ['langfuse', 'twenty', 'kong']) prepare(dir)
    }, 180_000)

    afterAll(async () => {
      for (const [dir, extra] of [
        ['langfuse', {}],
        ['twenty', {}],
        ['kong', { COMPOSE_PROFILES: 'database' }],
      ] as const)
        await vault(
          dir,
          ['run', '--env', envOf[dir]!, '--', 'docker-compose', 'down', '-t', '1'],
          extra,
        ).catch(() => undefined)
      await Promise.allSettled([server?.stop(), ...databases.map((database) => stopPostgres(database))])
      rmSync(work, { recursive: true, force: true })
      home?.cleanup()
    })

    /**
     * What compose should hand each service, worked out here from the published file and the vault's
     * values with the plain `${NAME}` / `${NAME:-default}` rule (the only forms these environments use).
     */
    const expectedEnvironments = (dir: string, values: Record<string, string>): Environments => {
      const model = parse(readFileSync(join(fixtures, dir, 'docker-compose.yml'), 'utf8'), {
        merge: true,
      }) as {
        services: Record<string, { environment?: Record<string, unknown> }>
      }
      const substitute = (text: string) =>
        text.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) =>
          values[name] !== undefined && values[name] !== '' ? values[name] : (fallback ?? ''),
        )
      return Object.fromEntries(
        Object.entries(model.services).map(([service, definition]) => [
          service,
          Object.fromEntries(
            Object.entries(definition.environment ?? {}).map(([name, value]) => [
              name,
              substitute(String(value)),
            ]),
          ),
        ]),
      )
    }
    /** The environments of the running containers without the image's own PATH. */
    const received = (dir: string): Environments =>
      Object.fromEntries(
        Object.entries(environments(dir)).map(([service, env]) => {
          const { PATH: _path, ...rest } = env
          return [service, rest]
        }),
      )

    it('langfuse: init plans and stores, check is clean, run delivers, rotate and rollback reach the database', async () => {
      const dir = 'langfuse'
      const plan = await planOf(dir)
      const actions = (action: string) =>
        Object.values(plan)
          .filter((entry) => entry.action === action)
          .map((entry) => entry.name)
          .sort()
      expect(actions('generate')).toEqual([
        'CLICKHOUSE_PASSWORD',
        'ENCRYPTION_KEY',
        'MINIO_ROOT_PASSWORD',
        'NEXTAUTH_SECRET',
        'POSTGRES_PASSWORD',
        'REDIS_AUTH',
        'SALT',
      ])
      expect(actions('template')).toEqual([
        'DATABASE_URL',
        'LANGFUSE_S3_BATCH_EXPORT_SECRET_ACCESS_KEY',
        'LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY',
        'LANGFUSE_S3_MEDIA_UPLOAD_SECRET_ACCESS_KEY',
      ])
      expect(plan.DATABASE_URL!.template).toBe(
        'postgresql://postgres:${POSTGRES_PASSWORD}@postgres:5432/postgres',
      )
      expect(plan.LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY!.template).toBe('${MINIO_ROOT_PASSWORD}')
      expect(plan.REDIS_TLS_KEY).toMatchObject({ action: 'skip', reason: 'a path' })
      expect(plan.NEXTAUTH_URL).toMatchObject({ action: 'skip', reason: 'a URL without credentials' })
      expect(plan.LANGFUSE_INIT_USER_PASSWORD).toMatchObject({
        action: 'skip',
        reason: 'optional: empty by default',
      })
      expect(actions('input')).toEqual([])

      const before = await findings(dir)
      expect(before.problems.map((problem) => problem.variable).sort()).toEqual(
        [...actions('generate'), ...actions('template')].sort(),
      )
      await ok(dir, ['secrets', 'init', '--env', envOf[dir]!, '--json'])
      const values = await exported(dir)
      expect(values.DATABASE_URL).toBe(
        `postgresql://postgres:${values.POSTGRES_PASSWORD}@postgres:5432/postgres`,
      )
      expect(await findings(dir)).toEqual({ exitCode: 0, problems: [] })

      const database = await startPostgres({ superuserPassword: values.POSTGRES_PASSWORD })
      databases.push(database)
      await ok(dir, ['run', '--env', envOf[dir]!, '--', 'docker-compose', 'up', '-d'])
      const expected = expectedEnvironments(dir, values)
      expect(received(dir)).toEqual({ ...expected, redis: {}, minio: expected.minio })
      expect(received(dir)['langfuse-web']!.LANGFUSE_S3_MEDIA_UPLOAD_SECRET_ACCESS_KEY).toBe(
        values.MINIO_ROOT_PASSWORD,
      )

      const { old, value, services, afterRotation } = await rotateAndRollBack(
        dir,
        'POSTGRES_PASSWORD',
        'postgres',
        database,
      )
      expect(services).toEqual(['langfuse-web', 'langfuse-worker', 'postgres'])
      const url = (password: string) => `postgresql://postgres:${password}@postgres:5432/postgres`
      expect(afterRotation['langfuse-web']!.DATABASE_URL).toBe(url(value))
      expect(afterRotation['langfuse-worker']!.DATABASE_URL).toBe(url(value))
      expect(afterRotation.postgres!.POSTGRES_PASSWORD).toBe(value)
      await ok(dir, ['run', '--env', envOf[dir]!, '--', 'docker-compose', 'up', '-d'])
      expect(received(dir)).toEqual(expectedEnvironments(dir, { ...values, POSTGRES_PASSWORD: old }))
    })

    it('twenty: the URL built from PG_DATABASE_PASSWORD follows the rotation and the rollback', async () => {
      const dir = 'twenty'
      const plan = await planOf(dir)
      expect(Object.fromEntries(Object.values(plan).map((entry) => [entry.name, entry.action]))).toEqual({
        APP_SECRET: 'generate',
        PG_DATABASE_PASSWORD: 'generate',
        SERVER_URL: 'input',
        STORAGE_S3_ENDPOINT: 'input',
        STORAGE_S3_NAME: 'input',
        STORAGE_S3_REGION: 'input',
        STORAGE_TYPE: 'input',
        PG_DATABASE_HOST: 'skip',
        PG_DATABASE_PORT: 'skip',
        PG_DATABASE_USER: 'skip',
        REDIS_URL: 'skip',
      })
      expect(plan.APP_SECRET!.reason).toBe('its default is a published placeholder')
      expect(plan.REDIS_URL!.reason).toBe('a URL without credentials')
      const inputs = {
        SERVER_URL: 'http://localhost:3000',
        STORAGE_TYPE: 'local',
        STORAGE_S3_REGION: 'auto',
        STORAGE_S3_NAME: 'twenty',
        STORAGE_S3_ENDPOINT: 'http://localhost:9000',
      }
      const refused = await vault(dir, ['secrets', 'init', '--env', envOf[dir]!])
      expect(refused.exitCode).not.toBe(0)
      expect(await exported(dir)).toEqual({})
      await ok(dir, [
        'secrets',
        'init',
        '--env',
        envOf[dir]!,
        ...Object.entries(inputs).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
      ])
      const values = await exported(dir)
      expect(values).toMatchObject(inputs)
      expect(values.PG_DATABASE_PASSWORD).toMatch(/^[A-Za-z0-9]{32}$/)
      expect(values.APP_SECRET).toMatch(/^[0-9a-f]{64}$/)
      expect(await findings(dir)).toEqual({ exitCode: 0, problems: [] })

      const database = await startPostgres({ superuserPassword: values.PG_DATABASE_PASSWORD })
      databases.push(database)
      await ok(dir, ['run', '--env', envOf[dir]!, '--', 'docker-compose', 'up', '-d'])
      const url = (password: string) => `postgres://postgres:${password}@db:5432/default`
      const expected = expectedEnvironments(dir, values)
      expect(expected.server!.PG_DATABASE_URL).toBe(url(values.PG_DATABASE_PASSWORD!))
      expect(received(dir)).toEqual({ ...expected, 'change-vol-ownership': {}, redis: {} })

      const { old, value, services, afterRotation } = await rotateAndRollBack(
        dir,
        'PG_DATABASE_PASSWORD',
        'postgres',
        database,
      )
      expect(services).toEqual(['db', 'server', 'worker'])
      expect(afterRotation.server!.PG_DATABASE_URL).toBe(url(value))
      expect(afterRotation.worker!.PG_DATABASE_URL).toBe(url(value))
      expect(afterRotation.db!.POSTGRES_PASSWORD).toBe(value)
      await ok(dir, ['run', '--env', envOf[dir]!, '--', 'docker-compose', 'up', '-d'])
      expect(received(dir).worker!.PG_DATABASE_URL).toBe(url(old))
    })

    it('kong: the compose secret, once it takes its value from the vault, reaches every mount and follows rotation', async () => {
      const dir = 'kong'
      const profiles = { COMPOSE_PROFILES: 'database' }
      // The one edit a user makes: the secret's source, a committed file, becomes a vault variable.
      const composePath = join(work, dir, 'docker-compose.yml')
      const model = parse(readFileSync(composePath, 'utf8')) as { secrets: Record<string, unknown> }
      expect(model.secrets).toEqual({ kong_postgres_password: { file: './POSTGRES_PASSWORD' } })
      model.secrets.kong_postgres_password = { environment: 'KONG_PG_PASSWORD' }
      writeFileSync(composePath, stringify(model))
      rmSync(join(work, dir, 'POSTGRES_PASSWORD'))

      const plan = await planOf(dir)
      expect(plan.KONG_PG_PASSWORD).toMatchObject({ action: 'generate' })
      expect(
        Object.values(plan)
          .filter((entry) => entry.action !== 'skip')
          .map((entry) => entry.name),
      ).toEqual(['KONG_PG_PASSWORD'])
      expect(plan.KONG_PREFIX).toMatchObject({ action: 'skip', reason: 'a path' })
      expect(await findings(dir, profiles)).toEqual({
        exitCode: 10,
        problems: [
          {
            level: 'error',
            code: 'required_variable',
            message:
              'compose secret kong_postgres_password takes its value from KONG_PG_PASSWORD, which is not set: vault secrets set KONG_PG_PASSWORD',
            variable: 'KONG_PG_PASSWORD',
          },
        ],
      })
      await ok(dir, ['secrets', 'init', '--env', envOf[dir]!], profiles)
      const values = await exported(dir)
      expect(Object.keys(values)).toEqual(['KONG_PG_PASSWORD'])
      expect(values.KONG_PG_PASSWORD).toMatch(/^[A-Za-z0-9]{32}$/)
      expect(await findings(dir, profiles)).toEqual({ exitCode: 0, problems: [] })

      const database = await startPostgres({ superuserPassword: randomBytes(12).toString('hex') })
      databases.push(database)
      const admin = new pg.Client({ connectionString: database.url })
      await admin.connect()
      await admin.query(`CREATE ROLE kong LOGIN PASSWORD '${values.KONG_PG_PASSWORD!}'`)
      await admin.end()
      await ok(dir, ['run', '--env', envOf[dir]!, '--', 'docker-compose', 'up', '-d'], profiles)
      const mounts = ['db', 'kong', 'kong-migrations', 'kong-migrations-up']
      const file = (service: string) =>
        containerFile(engine!.dockerHost, projectOf(dir), service, '/run/secrets/kong_postgres_password')
      expect(received(dir)).toEqual(expectedEnvironments(dir, values))
      expect(JSON.stringify(received(dir))).not.toContain(values.KONG_PG_PASSWORD)
      for (const service of mounts) expect(file(service)).toBe(values.KONG_PG_PASSWORD)

      const { old, value, services } = await rotateAndRollBack(
        dir,
        'KONG_PG_PASSWORD',
        'kong',
        database,
        profiles,
        (rotated) => {
          for (const service of mounts) expect(file(service)).toBe(rotated)
          expect(JSON.stringify(environments(dir))).not.toContain(rotated)
        },
      )
      expect(services).toEqual(mounts)
      // The rollback restarts nothing, and compose sees no change in a secret file's definition:
      // --force-recreate is what puts the rolled-back value into the mounts (see the report of issue 35).
      await ok(
        dir,
        ['run', '--env', envOf[dir]!, '--', 'docker-compose', 'up', '-d', '--force-recreate'],
        profiles,
      )
      for (const service of mounts) expect(file(service)).toBe(old)
      expect(value).not.toBe(old)
    })
  },
)
