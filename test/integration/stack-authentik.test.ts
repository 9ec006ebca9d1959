/**
 * authentik's published compose stack (test/fixtures/stacks/authentik, see its SOURCE) through a new
 * user's whole flow, against a real `vault server --dev` process (as scripts/demo.sh starts one, the
 * stack's `.vault/credentials` written by `--write-env`), the private engine and a private
 * scram-sha-256 PostgreSQL:
 *
 * - without the `.env` authentik's install guide creates (three services list it in `env_file`),
 *   `secrets init` names the missing file and the service instead of planning the example stack's
 *   preset (DATA_DIR, GATEWAY_DOMAIN, ...) for it, as it did;
 * - with a `.env` of settings only, `secrets init` generates exactly PG_PASS and AUTHENTIK_SECRET_KEY
 *   and stores no default, port or image as a secret; `render --check` goes from two missing required
 *   variables to clean;
 * - `vault run -- docker-compose up -d`: every container's exact environment (the env_file's setting
 *   plus the interpolated `environment:`), PG_PASS the same in the database's POSTGRES_PASSWORD and in
 *   the server's and worker's AUTHENTIK_POSTGRESQL__PASSWORD;
 * - `rotate PG_PASS --rotator postgres`: the database takes the new password and refuses the old, the
 *   three users are recreated with it and keep agreeing; `secrets rollback PG_PASS 1 --rotator postgres`
 *   and an `up` put every one back on the first value;
 * - the existing-stack path: the guide's `.env` holding both secrets, `secrets import --only ... --move`,
 *   and the env_file consumers still receive them through `vault run`;
 * - canary: no value in any CLI output, any container's command line or log, the vault server's log or
 *   PostgreSQL's log.
 *
 * Images come from no registry: each service runs the harness's busybox with network_mode none.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  postgresUnavailableReason,
  startPostgres,
  stopPostgres,
  type PostgresInfo,
} from '../harness/postgres.js'
import { runJs } from '../helpers/cli.js'
import { runVault } from '../helpers/run-vault.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { containerEnvironments, forPrivateEngine } from '../helpers/private-engine-stack.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { postgresAccepts } from '../helpers/database-login.js'

const engine = engineOrNull()
const noPostgres = postgresUnavailableReason()
const fixture = fileURLToPath(new URL('../fixtures/stacks/authentik/', import.meta.url))

type Environments = Record<string, Record<string, string>>
type PlanEntry = { name: string; action: string; reason: string }

/** The settings-only `.env` a vault user keeps (authentik's guide puts both secrets there too). */
const settings = 'AUTHENTIK_ERROR_REPORTING__ENABLED=true\n'

describe.skipIf(!engine || noPostgres)(
  `authentik's published stack end to end (${!engine ? unavailableReason('engine') : (noPostgres ?? 'available')})`,
  () => {
    const work = mkdtempSync('/tmp/vault-authentik-')
    const stackDir = join(work, 'stack')
    let home: TempHome
    let server: ChildProcess
    let serverLog = ''
    const databases: PostgresInfo[] = []
    /** Every value the vault held at any point: none may show up where it does not belong. */
    const seen = new Set<string>()
    const outputs: string[] = []

    const project = (env: string) => `authentik${env}`
    /** `vault run` spawned (docker-compose is its child); the other commands in this process. */
    const vault = async (env: string, args: string[], extra: Record<string, string> = {}) => {
      const result = await runVault(args, {
        env: { ...home.env, DOCKER_HOST: engine!.dockerHost, COMPOSE_PROJECT_NAME: project(env), ...extra },
        cwd: stackDir,
        timeout: 180_000,
      })
      // export prints the values: that is its job
      if (args[0] !== 'export') outputs.push(result.stdout, result.stderr)
      return result
    }
    const ok = async (env: string, args: string[]) => {
      const result = await vault(env, args)
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}${result.stdout}`).toBe(0)
      return result
    }
    const exported = async (env: string) => {
      const values = JSON.parse(
        (await ok(env, ['export', '--env', env, '--format', 'json'])).stdout,
      ) as Record<string, string>
      for (const value of Object.values(values)) seen.add(value)
      return values
    }
    const docker = (...args: string[]) =>
      execFileSync('docker', args, {
        env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost },
      }).toString('utf8')
    const containerIds = (env: string) =>
      docker('ps', '-aq', '--no-trunc', '--filter', `label=com.docker.compose.project=${project(env)}`)
        .split('\n')
        .filter(Boolean)
    /** The running containers' environments without the image's own PATH. */
    const received = (env: string): Environments =>
      Object.fromEntries(
        Object.entries(containerEnvironments(engine!.dockerHost, project(env))).map(([service, vars]) => {
          const { PATH: _path, ...rest } = vars
          return [service, rest]
        }),
      )
    /**
     * What compose should hand each service, worked out here from the published file, the env file and
     * the vault's values with the `${NAME}`, `${NAME:-default}` and `${NAME:?message}` rules (the only
     * forms the file uses): the env_file's keys first, `environment:` over them.
     */
    const expectedEnvironments = (values: Record<string, string>, envFile: Record<string, string>) => {
      const model = parse(readFileSync(join(fixture, 'docker-compose.yml'), 'utf8')) as {
        services: Record<string, { environment?: Record<string, unknown>; env_file?: string[] }>
      }
      const substitute = (text: string) =>
        text.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) =>
          values[name] ? values[name] : kind === '-' ? rest! : '',
        )
      return Object.fromEntries(
        Object.entries(model.services).map(([service, definition]) => [
          service,
          {
            ...(definition.env_file ? envFile : {}),
            ...Object.fromEntries(
              Object.entries(definition.environment ?? {}).map(([name, value]) => [
                name,
                substitute(String(value)),
              ]),
            ),
          },
        ]),
      ) as Environments
    }
    const pgLogin = (database: PostgresInfo, password: string) =>
      postgresAccepts(database.port, 'authentik', password)
    /** A private PostgreSQL with the stack's role `authentik` holding `password` (what the database's first start does). */
    const databaseFor = async (password: string) => {
      const database = await startPostgres({ superuserPassword: randomBytes(16).toString('hex') })
      databases.push(database)
      const admin = new pg.Client({ connectionString: database.url })
      await admin.connect()
      await admin.query(`CREATE ROLE authentik LOGIN PASSWORD '${password.replace(/'/g, "''")}'`)
      await admin.end()
      return database
    }
    /** The three services that use PG_PASS agree on `password`. */
    const expectPassword = (environments: Environments, password: string) => {
      expect(environments.postgresql!.POSTGRES_PASSWORD).toBe(password)
      expect(environments.server!.AUTHENTIK_POSTGRESQL__PASSWORD).toBe(password)
      expect(environments.worker!.AUTHENTIK_POSTGRESQL__PASSWORD).toBe(password)
    }
    /** Rotates PG_PASS with the postgres rotator, then rolls it back to version 1 and runs `up` again. */
    const rotateAndRollBack = async (env: string, database: PostgresInfo) => {
      const rotator = [
        '--rotator',
        'postgres',
        '--rotator-url',
        `postgres://authentik@127.0.0.1:${database.port}/postgres`,
      ]
      const old = (await exported(env)).PG_PASS!
      const rotated = await ok(env, [
        'rotate',
        'PG_PASS',
        '--env',
        env,
        ...rotator,
        '--stable',
        '1',
        '--json',
      ])
      const result = JSON.parse(rotated.stdout)
      const value = (await exported(env)).PG_PASS!
      expect(value).not.toBe(old)
      expect(result).toMatchObject({
        outcome: 'rotated',
        vaultHolds: 'new',
        healthy: true,
        rotator: 'postgres',
      })
      expect((result.services as { service: string }[]).map((entry) => entry.service)).toEqual([
        'postgresql',
        'server',
        'worker',
      ])
      expect(await pgLogin(database, value)).toBe(true)
      expect(await pgLogin(database, old)).toBe(false)
      expectPassword(received(env), value)

      const rolled = await ok(env, [
        'secrets',
        'rollback',
        'PG_PASS',
        '1',
        '--env',
        env,
        ...rotator,
        '--json',
      ])
      expect(rolled.stderr).toContain(
        `still hold the newer value of PG_PASS, which the database no longer accepts: recreate them (vault run --env ${env} -- docker-compose up -d --force-recreate)`,
      )
      expect((await exported(env)).PG_PASS).toBe(old)
      expect(await pgLogin(database, old)).toBe(true)
      expect(await pgLogin(database, value)).toBe(false)
      await ok(env, ['run', '--env', env, '--', 'docker-compose', 'up', '-d'])
      expectPassword(received(env), old)
    }

    beforeAll(async () => {
      home = createTempHome()
      mkdirSync(stackDir)
      writeFileSync(
        join(stackDir, 'docker-compose.yml'),
        forPrivateEngine(readFileSync(join(fixture, 'docker-compose.yml'), 'utf8'), engine!.busyboxImage),
      )
      // the real server as scripts/demo.sh starts it: SQLite in a temporary directory, the project with
      // dev, staging and prod, the stack's .vault/credentials
      server = spawn(
        process.execPath,
        [
          '--',
          runJs,
          'server',
          '--dev',
          '--data-dir',
          join(work, 'vault'),
          '--port',
          '0',
          '--init-project',
          'authentik',
          '--write-env',
          stackDir,
        ],
        { env: { PATH: process.env.PATH, ...home.env }, stdio: ['ignore', 'ignore', 'pipe'] },
      )
      await new Promise<void>((resolve, reject) => {
        server.stderr!.on('data', (chunk: Buffer) => {
          serverLog += chunk.toString('utf8')
          if (serverLog.includes('vault server listening on')) resolve()
        })
        server.once('exit', (code) => reject(new Error(`vault server exited (${code}): ${serverLog}`)))
      })
    }, 180_000)

    afterAll(async () => {
      for (const env of ['dev', 'staging'])
        await vault(env, ['run', '--env', env, '--', 'docker-compose', 'down', '-t', '1']).catch(
          () => undefined,
        )
      server?.kill('SIGTERM')
      await Promise.allSettled(databases.map((database) => stopPostgres(database)))
      rmSync(work, { recursive: true, force: true })
      home?.cleanup()
    })

    it('secrets init names the missing env_file instead of planning the example stack for it', async () => {
      const dry = await vault('dev', ['secrets', 'init', '--env', 'dev', '--dry-run'])
      expect(dry.exitCode).toBe(5)
      expect(dry.stderr).toContain(`Error: service postgresql: env file ${join(stackDir, '.env')} not found`)
      expect(dry.stderr).toContain('create the file (an empty one will do)')
      expect(dry.stdout + dry.stderr).not.toMatch(/preset|DATA_DIR/)
    })

    it('init generates the two secrets, run delivers them, rotate and rollback keep the three users agreeing', async () => {
      writeFileSync(join(stackDir, '.env'), settings)
      const dry = await ok('dev', ['secrets', 'init', '--env', 'dev', '--dry-run', '--json'])
      const plan = Object.fromEntries(
        (JSON.parse(dry.stdout).plan as PlanEntry[]).map((entry) => [entry.name, entry.action]),
      )
      // (the image and ports variables went with the rewrite for the private engine)
      expect(plan).toEqual({
        AUTHENTIK_SECRET_KEY: 'generate',
        PG_PASS: 'generate',
        PG_DB: 'skip',
        PG_USER: 'skip',
      })
      const before = await vault('dev', ['render', '--check', '--env', 'dev', '--json'])
      expect(before.exitCode).toBe(10)
      const errors = (
        JSON.parse(before.stdout).problems as { level: string; variable: string; service: string }[]
      )
        .filter((problem) => problem.level === 'error')
        .map((problem) => `${problem.variable} ${problem.service}`)
      expect(errors.sort()).toEqual([
        'AUTHENTIK_SECRET_KEY server',
        'AUTHENTIK_SECRET_KEY worker',
        'PG_PASS postgresql',
      ])

      await ok('dev', ['secrets', 'init', '--env', 'dev'])
      const values = await exported('dev')
      expect(Object.keys(values).sort()).toEqual(['AUTHENTIK_SECRET_KEY', 'PG_PASS'])
      expect(values.PG_PASS).toMatch(/^[A-Za-z0-9]{32}$/)
      expect(values.AUTHENTIK_SECRET_KEY).toMatch(/^[0-9a-f]{64}$/)
      const after = await ok('dev', ['render', '--check', '--env', 'dev', '--json'])
      expect(
        (JSON.parse(after.stdout).problems as { level: string }[]).filter(
          (problem) => problem.level !== 'info',
        ),
      ).toEqual([])

      const database = await databaseFor(values.PG_PASS!)
      await ok('dev', ['run', '--env', 'dev', '--', 'docker-compose', 'up', '-d'])
      const expected = expectedEnvironments(values, { AUTHENTIK_ERROR_REPORTING__ENABLED: 'true' })
      expect(expected.server).toMatchObject({
        AUTHENTIK_SECRET_KEY: values.AUTHENTIK_SECRET_KEY,
        AUTHENTIK_POSTGRESQL__USER: 'authentik',
        AUTHENTIK_POSTGRESQL__NAME: 'authentik',
      })
      expect(received('dev')).toEqual(expected)
      expectPassword(received('dev'), values.PG_PASS!)

      await rotateAndRollBack('dev', database)
      expect(received('dev')).toEqual(expected)
    })

    it("the guide's .env with both secrets: import --move, and the env_file consumers still receive them", async () => {
      const guide = {
        PG_PASS: `pg-${randomBytes(18).toString('base64url')}`,
        AUTHENTIK_SECRET_KEY: `key-${randomBytes(24).toString('base64url')}`,
      }
      for (const value of Object.values(guide)) seen.add(value)
      const envPath = join(stackDir, '.env')
      writeFileSync(
        envPath,
        `PG_PASS=${guide.PG_PASS}\nAUTHENTIK_SECRET_KEY=${guide.AUTHENTIK_SECRET_KEY}\n${settings}`,
      )
      copyFileSync(envPath, join(work, 'guide.env'))
      const dry = await ok('staging', [
        'secrets',
        'import',
        '.env',
        '--env',
        'staging',
        '--dry-run',
        '--json',
      ])
      expect(
        (JSON.parse(dry.stdout).secrets as { name: string; reason?: string; services: string[] }[]).map(
          (entry) => [entry.name, entry.reason, entry.services.join(',')],
        ),
      ).toEqual([
        ['PG_PASS', undefined, 'postgresql,server,worker'],
        ['AUTHENTIK_SECRET_KEY', undefined, 'postgresql,server,worker'],
        [
          'AUTHENTIK_ERROR_REPORTING__ENABLED',
          'a setting (a boolean), not a secret: it can stay in .env (--only names the secrets)',
          'postgresql,server,worker',
        ],
      ])
      await ok('staging', [
        'secrets',
        'import',
        '.env',
        '--env',
        'staging',
        '--only',
        'PG_PASS',
        '--only',
        'AUTHENTIK_SECRET_KEY',
        '--move',
      ])
      const moved = readFileSync(envPath, 'utf8')
      for (const value of Object.values(guide)) expect(moved).not.toContain(value)
      expect(moved).toContain(settings)
      expect(await exported('staging')).toEqual(guide)

      const database = await databaseFor(guide.PG_PASS)
      await ok('staging', ['run', '--env', 'staging', '--', 'docker-compose', 'up', '-d'])
      // env_file: .env hands each of the three services every key of .env, the moved ones included
      const expected = expectedEnvironments(guide, {
        PG_PASS: guide.PG_PASS,
        AUTHENTIK_SECRET_KEY: guide.AUTHENTIK_SECRET_KEY,
        AUTHENTIK_ERROR_REPORTING__ENABLED: 'true',
      })
      expect(received('staging')).toEqual(expected)
      await rotateAndRollBack('staging', database)
      expect(received('staging')).toEqual(expected)
    })

    it('no value reached a command line, a log or the CLI output', () => {
      expect(seen.size).toBeGreaterThanOrEqual(6)
      const logs = [
        serverLog,
        ...outputs,
        ...databases.map((database) => readFileSync(join(database.dir, 'log'), 'utf8')),
      ]
      for (const env of ['dev', 'staging']) {
        for (const id of containerIds(env)) {
          const [inspected] = JSON.parse(docker('inspect', id)) as {
            Path: string
            Args: string[]
            Config: { Cmd: string[] | null; Entrypoint: string[] | null }
          }[]
          logs.push(
            JSON.stringify([
              inspected!.Path,
              inspected!.Args,
              inspected!.Config.Cmd,
              inspected!.Config.Entrypoint,
            ]),
          )
          logs.push(docker('logs', id))
        }
      }
      for (const value of seen) for (const text of logs) expect(text).not.toContain(value)
    })
  },
)
