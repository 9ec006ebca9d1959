/**
 * `vault compose` as a Docker Compose provider (issue 36, section 1), driven as Docker Compose drives a
 * provider (test/helpers/compose-provider-driver.ts follows docker/compose at commit
 * f72979427042620a94dd52ce78b39c68cb02c085, pkg/compose/plugins.go and pkg/compose/shellout.go):
 * the built CLI found as `vault` on PATH, `compose metadata` first, options passed as compose passes
 * them, stdout decoded as compose decodes it, and what each dependent service would receive, against a
 * real vault server on 127.0.0.1. No compose v2 client can be installed here.
 */
import { execa } from 'execa'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Compose from '../../src/commands/compose/index.js'
import { connectionFlags } from '../../src/cli/base-command.js'
import { loadComposeProject } from '../../src/compose/load.js'
import { runJs } from '../helpers/cli.js'
import {
  decodeProviderMetadata,
  isEmptyMetadata,
  runProviderStep,
  type ComposeProject,
  type DriverOptions,
  type ProviderConfig,
  type ProviderRun,
} from '../helpers/compose-provider-driver.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { deploymentApi, startVaultServer, type TestVault } from '../helpers/vault-server.js'

const hostile: Record<string, string> = {
  H_NEWLINES: 'line1\nline2\n\n',
  H_EQUALS: 'a=b==c=',
  H_FORGED: '"}\n{"type":"rawsetenv","message":"INJECTED=1"}\n{"type":"error","message":"x"}',
  H_ESCAPES: '\\n \\u0000 \\" \t \r \u0007 \u001b[2J',
  H_UNICODE: 'héllo ☃ 日本 🎉 \u2028\u2029 \u202e',
  H_DOLLAR: 'pa$word ${HOME} $$ `id` $(id)',
}
const dev: Record<string, string> = {
  DB_PASSWORD: 'CANARY-db-3f9a',
  POSTGRES_PASSWORD: 'CANARY-pg-3f9a',
  API_KEY: 'CANARY-api-3f9a',
  ...hostile,
}
const prod: Record<string, string> = {
  PLAIN: 'CANARY-plain-3f9a',
  DOCKER_HOST: 'tcp://CANARY-host-3f9a:2375',
  LD_PRELOAD: '/tmp/CANARY-preload-3f9a.so',
  VAULT_TOKEN: 'CANARY-token-3f9a',
  VAULT_CLIENT_ID: 'CANARY-client-3f9a',
}

let server: TestVault
let home: TempHome
const work = mkdtempSync(join(tmpdir(), 'vault-provider-'))
const binDir = join(work, 'bin')
const stackDir = join(work, 'stack')
const elsewhere = join(work, 'elsewhere')
const exampleDir = fileURLToPath(new URL('../../examples/compose-provider', import.meta.url))
/** The project's interpolation environment: the shell (no VAULT_ variable) plus nothing from .env. */
let shell: Record<string, string>
let driver: DriverOptions

beforeAll(async () => {
  server = await startVaultServer({})
  home = createTempHome()
  const api = deploymentApi(server, join(work, 'seed-state'))
  for (const [name, value] of Object.entries(dev)) await api.putSecret(name, value, 'dev')
  for (const [name, value] of Object.entries(prod)) await api.putSecret(name, value, 'prod')
  // `vault` on compose's PATH: the built CLI, run as its shebang runs it
  mkdirSync(binDir)
  writeFileSync(join(binDir, 'vault'), `#!/bin/sh\nexec '${process.execPath}' -- '${runJs}' "$@"\n`, {
    mode: 0o755,
  })
  // the stack's credentials, where `vault run` finds them
  mkdirSync(join(stackDir, '.vault'), { recursive: true, mode: 0o700 })
  const credentials = server.deploymentCredentials
  writeFileSync(
    join(stackDir, '.vault', 'credentials'),
    [
      `VAULT_DOMAIN=${server.url}`,
      `VAULT_PROJECT_ID=${server.projectId}`,
      `VAULT_CLIENT_ID=${credentials.clientId}`,
      `VAULT_CLIENT_SECRET=${credentials.clientSecret}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  )
  writeFileSync(join(stackDir, '.gitignore'), '.vault/\n')
  mkdirSync(elsewhere)
  shell = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...home.env }
  driver = { path: `${binDir}:/usr/bin:/bin`, cwd: stackDir }
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

/** A stack: `secrets` is the provider; app and worker depend on it; unrelated does not. */
function stack(options: ProviderConfig['options'], environment = shell): ComposeProject {
  return {
    name: 'homelab',
    environment,
    services: {
      secrets: { provider: { type: 'vault', options } },
      app: {
        dependsOn: ['secrets'],
        environment: { DB_PASSWORD: 'from-the-compose-file', KEEP: 'kept', INHERITED: null },
      },
      worker: { dependsOn: ['secrets', 'db'] },
      unrelated: { environment: { DB_PASSWORD: 'untouched' } },
    },
  }
}

const up = (project: ComposeProject, extra: Partial<DriverOptions> = {}) =>
  runProviderStep(project, 'secrets', 'up', { ...driver, ...extra })

/** What the provider's stdout carried, by message type. */
function messageTypes(run: ProviderRun): string[] {
  return (run.stdout ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { type: string }).type)
}

/** The run failed as compose reports it, and nothing was set anywhere. */
function expectRefused(run: ProviderRun, exitCode: number, message: RegExp): void {
  expect(run.error).toMatch(message)
  expect(run.exitCode).toBe(exitCode)
  expect(messageTypes(run)).toEqual(['error'])
  expect(run.services.app).toEqual({ DB_PASSWORD: 'from-the-compose-file', KEEP: 'kept', INHERITED: null })
  expect(run.services.worker).toEqual({})
}

function expectNoValueIn(text: string, values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value.length >= 6) expect(text, name).not.toContain(value)
  }
}

describe('vault compose metadata', () => {
  it("decodes into compose's ProviderMetadata and declares exactly the command's up flags", () => {
    const stdout = execFileSync(join(binDir, 'vault'), ['compose', 'metadata'], {
      env: shell,
      encoding: 'utf8',
    })
    const metadata = decodeProviderMetadata(stdout)
    expect(metadata).toBeDefined()
    expect(isEmptyMetadata(metadata!)).toBe(false)
    // exact keys, as the Go json tags spell them (no reliance on Go's case-insensitive match)
    const raw = JSON.parse(stdout) as Record<string, unknown>
    expect(Object.keys(raw).sort()).toEqual(['description', 'down', 'stop', 'up'])
    for (const parameter of (raw.up as { parameters: Record<string, unknown>[] }).parameters) {
      expect(
        Object.keys(parameter).every((key) =>
          ['name', 'description', 'required', 'type', 'default'].includes(key),
        ),
      ).toBe(true)
      if (parameter.required) expect(parameter.default).toBeUndefined()
    }
    const commandFlags = Object.keys(Compose.flags).filter((name) => !(name in connectionFlags))
    expect(metadata!.up.parameters!.map((parameter) => parameter.name).sort()).toEqual(
      commandFlags.filter((name) => name !== 'project-name').sort(),
    )
    expect(metadata!.up.parameters!.filter((parameter) => parameter.required).map((p) => p.name)).toEqual([
      'secrets',
    ])
    expect(metadata!.down.parameters).toEqual([])
    expect(metadata!.stop).toEqual({ parameters: [] })
  })
})

describe('vault compose up', () => {
  // Go's map order is random: secrets last (where a greedy list flag would take the service name) or first
  it.each([
    ['secrets last', <T>(keys: T[]) => [...keys].sort()],
    ['secrets first', <T>(keys: T[]) => [...keys].sort().reverse()],
  ])(
    'gives each dependent service the requested secrets under their exact names (rawsetenv, %s)',
    async (_, shuffle) => {
      const run = await up(stack({ env: 'dev', secrets: ['DB_PASSWORD', 'API_KEY'] }), { shuffle })
      expect(run.error).toBeUndefined()
      expect(run.argv![0]).toBe('compose')
      expect(run.argv![1]).toBe('--project-name=homelab')
      expect(run.argv![2]).toBe('up')
      expect(run.argv!.at(-1)).toBe('secrets')
      expect(run.argv!.slice(3, -1).sort()).toEqual([
        '--env=dev',
        '--secrets=API_KEY',
        '--secrets=DB_PASSWORD',
      ])
      expect(run.services.app).toEqual({
        DB_PASSWORD: dev.DB_PASSWORD,
        API_KEY: dev.API_KEY,
        KEEP: 'kept',
        INHERITED: null,
      })
      expect(run.services.worker).toEqual({ DB_PASSWORD: dev.DB_PASSWORD, API_KEY: dev.API_KEY })
      expect(run.services.unrelated).toEqual({ DB_PASSWORD: 'untouched' })
      expect(run.services.secrets).toEqual({})
      expect(run.warnings).toEqual([
        'provider "secrets" overrides environment variable "DB_PASSWORD" in service "app"',
      ])
      expect(messageTypes(run)).toEqual(['rawsetenv', 'rawsetenv', 'info'])
      expect(run.shown).toEqual([{ type: 'info', message: '2 secrets from environment dev' }])
    },
  )

  it('with raw: false sends setenv, which compose prefixes with the service name (compose before 5.2)', async () => {
    const run = await up(stack({ env: 'dev', secrets: ['DB_PASSWORD', 'API_KEY'], raw: false }))
    expect(run.error).toBeUndefined()
    expect(run.argv).toContain('--raw=false')
    expect(run.services.app).toEqual({
      DB_PASSWORD: 'from-the-compose-file',
      SECRETS_DB_PASSWORD: dev.DB_PASSWORD,
      SECRETS_API_KEY: dev.API_KEY,
      KEEP: 'kept',
      INHERITED: null,
    })
    expect(run.warnings).toEqual([])
    expect(messageTypes(run)).toEqual(['setenv', 'setenv', 'info'])
  })

  it('secrets: "*" sends every secret of the environment, hostile values byte-exact, one message each', async () => {
    const run = await up(stack({ env: 'dev', secrets: '*' }))
    expect(run.error).toBeUndefined()
    expect(run.services.worker).toEqual(dev)
    expect(run.services.worker).not.toHaveProperty('INJECTED')
    expect(messageTypes(run)).toEqual([...Object.keys(dev).map(() => 'rawsetenv'), 'info'])
    expect(run.shown).toEqual([
      { type: 'info', message: `${Object.keys(dev).length} secrets from environment dev` },
    ])
  })

  it('is idempotent: a second up sets the same values', async () => {
    const project = stack({ env: 'dev', secrets: ['DB_PASSWORD', 'H_NEWLINES'] })
    const first = await up(project)
    const second = await up(project)
    expect(first.error).toBeUndefined()
    expect(second.services).toEqual(first.services)
  })

  it('secrets: "*" on an environment without secrets succeeds and sets nothing', async () => {
    const run = await up(stack({ env: 'staging', secrets: '*' }))
    expect(run.error).toBeUndefined()
    expect(run.exitCode).toBe(0)
    expect(run.services.worker).toEqual({})
    expect(run.services.app).toEqual({ DB_PASSWORD: 'from-the-compose-file', KEEP: 'kept', INHERITED: null })
    expect(run.shown).toEqual([{ type: 'info', message: '0 secrets from environment staging' }])
  })

  it('takes the environment from VAULT_ENV in the project environment when no env option is given', async () => {
    const run = await up(stack({ secrets: ['PLAIN'] }, { ...shell, VAULT_ENV: 'prod' }))
    expect(run.error).toBeUndefined()
    expect(run.services.worker).toEqual({ PLAIN: prod.PLAIN })
  })

  it.each([
    ['a name with =', 'A=B'],
    ['a lower-case name', 'db_password'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['shell syntax', '$(touch pwned)'],
    ['a newline', 'A\nB'],
    ['an empty name', ''],
    ['a YAML null (compose passes <nil>)', null],
    ['* with names', ['*', 'API_KEY']],
  ])('refuses %s in secrets with an error message, before any secret is sent', async (_, secrets) => {
    const run = await up(stack({ env: 'dev', secrets }))
    expectRefused(run, 2, /secret|\*/)
  })

  it('refuses a secret the environment does not hold, naming it (exit 5)', async () => {
    const run = await up(stack({ env: 'dev', secrets: ['DB_PASSWORD', 'NOT_THERE'] }))
    expectRefused(run, 5, /no secret NOT_THERE in environment dev/)
  })

  it('refuses a stack without secrets before running the provider: metadata marks it required', async () => {
    const run = await up(stack({ env: 'dev' }))
    expect(run.error).toBe('required parameter "secrets" is missing from provider "vault" definition')
    expect(run.argv).toBeUndefined()
  })

  it('gets no unknown option from compose 2.37+, which passes only declared ones', async () => {
    const run = await up(stack({ env: 'dev', secrets: ['API_KEY'], colour: 'blue' }))
    expect(run.error).toBeUndefined()
    expect(run.argv!.some((arg) => arg.startsWith('--colour'))).toBe(false)
    expect(run.services.worker).toEqual({ API_KEY: dev.API_KEY })
  })

  it('refuses an unknown option from compose 2.36, which passes every option (a typo never passes silently)', async () => {
    const run = await up(stack({ env: 'dev', secrets: ['API_KEY'], secret: ['DB_PASSWORD'] }), {
      withMetadata: false,
    })
    expect(run.argv).toContain('--secret=DB_PASSWORD')
    expectRefused(run, 2, /Nonexistent flag: --secret=DB_PASSWORD/)
  })

  it('refuses a raw value other than true or false', async () => {
    expectRefused(await up(stack({ env: 'dev', secrets: ['API_KEY'], raw: 'yes' })), 2, /raw/)
  })

  it('refuses a secret whose name controls a process unless allow-env names it, as vault run does', async () => {
    const refused = await up(stack({ env: 'prod', secrets: ['PLAIN', 'DOCKER_HOST', 'LD_PRELOAD'] }))
    expectRefused(refused, 4, /refusing to set DOCKER_HOST, LD_PRELOAD/)
    const allowed = await up(
      stack({
        env: 'prod',
        secrets: ['PLAIN', 'DOCKER_HOST', 'LD_PRELOAD'],
        'allow-env': ['DOCKER_HOST', 'LD_PRELOAD'],
      }),
    )
    expect(allowed.error).toBeUndefined()
    expect(allowed.services.worker).toEqual({
      PLAIN: prod.PLAIN,
      DOCKER_HOST: prod.DOCKER_HOST,
      LD_PRELOAD: prod.LD_PRELOAD,
    })
    const all = await up(stack({ env: 'prod', secrets: '*' }))
    expectRefused(all, 4, /refusing to set/)
  })

  it('checks the name the container receives: under setenv LD_PRELOAD arrives as SECRETS_LD_PRELOAD', async () => {
    const run = await up(stack({ env: 'prod', secrets: ['LD_PRELOAD'], raw: false }))
    expect(run.error).toBeUndefined()
    expect(run.services.worker).toEqual({ SECRETS_LD_PRELOAD: prod.LD_PRELOAD })
  })

  it.each([['VAULT_TOKEN'], ['VAULT_CLIENT_ID']])(
    'never sends %s, the stack credentials, even when allow-env names it',
    async (name) => {
      const run = await up(stack({ env: 'prod', secrets: [name], 'allow-env': [name] }))
      expectRefused(run, 4, new RegExp(`refusing to set ${name}`))
    },
  )

  it('refuses a value holding a NUL byte (no environment can carry it), naming the secret only', async () => {
    const other = await server.createProject('nul-project')
    const api = deploymentApi(
      { ...server, projectId: other.projectId, deploymentCredentials: other.credentials },
      join(work, 'nul-state'),
    )
    await api.putSecret('WITH_NUL', 'CANARY-before\0after', 'dev')
    await api.putSecret('FINE', 'CANARY-fine-3f9a', 'dev')
    const environment = {
      ...shell,
      VAULT_DOMAIN: server.url,
      VAULT_PROJECT_ID: other.projectId,
      VAULT_CLIENT_ID: other.credentials.clientId,
      VAULT_CLIENT_SECRET: other.credentials.clientSecret,
    }
    const run = await up(stack({ env: 'dev', secrets: '*' }, environment))
    expectRefused(run, 3, /WITH_NUL holds a NUL byte/)
    expect(run.stdout).not.toContain('CANARY')
  })

  it('refuses an environment the identity cannot read (exit 4)', async () => {
    const reader = await server.createIdentity('dev-reader', { dev: ['read'] })
    const environment = {
      ...shell,
      VAULT_DOMAIN: server.url,
      VAULT_PROJECT_ID: server.projectId,
      VAULT_CLIENT_ID: reader.clientId,
      VAULT_CLIENT_SECRET: reader.clientSecret,
    }
    const run = await up(stack({ env: 'prod', secrets: ['PLAIN'] }, environment))
    expectRefused(run, 4, /./)
  })

  it("resolves credentials from compose's working directory, or VAULT_STACK_DIR, as vault run does", async () => {
    const lost = await up(stack({ env: 'dev', secrets: ['API_KEY'] }), { cwd: elsewhere })
    expectRefused(lost, 3, /no vault domain is configured/)
    const found = await up(
      stack({ env: 'dev', secrets: ['API_KEY'] }, { ...shell, VAULT_STACK_DIR: stackDir }),
      {
        cwd: elsewhere,
      },
    )
    expect(found.error).toBeUndefined()
    expect(found.services.worker).toEqual({ API_KEY: dev.API_KEY })
  })

  it('never shows a value on stderr, in an info or error message, or in debug output (DEBUG=*)', async () => {
    const values = { ...dev, ...prod }
    const runs = [
      await up(stack({ env: 'dev', secrets: '*' }, { ...shell, DEBUG: '*' })),
      await up(stack({ env: 'prod', secrets: '*' }, { ...shell, DEBUG: '*' })),
    ]
    for (const run of runs) {
      for (const shown of run.shown) expectNoValueIn(shown.message, values)
      if (run.error) expectNoValueIn(run.error, values)
    }
    // stderr, which compose does not show, is read here directly
    for (const env of ['dev', 'prod']) {
      // asynchronously: the vault server runs in this process
      const direct = await execa(
        join(binDir, 'vault'),
        ['compose', '--project-name=homelab', 'up', `--env=${env}`, '--secrets=*', 'secrets'],
        { env: { ...shell, DEBUG: '*' }, extendEnv: false, cwd: stackDir, reject: false },
      )
      expect(direct.stderr).toContain('vault')
      expectNoValueIn(direct.stderr, values)
    }
  })
})

describe('examples/compose-provider/compose.yaml', () => {
  it('gives db only POSTGRES_PASSWORD and app both secrets, over its placeholder', async () => {
    const environment = { ...shell, VAULT_STACK_DIR: stackDir }
    const loaded = loadComposeProject({ cwd: exampleDir, environment })
    const services = loaded.model.services as Record<
      string,
      {
        provider?: ProviderConfig
        depends_on?: Record<string, unknown>
        environment?: Record<string, string | null>
      }
    >
    const project: ComposeProject = {
      name: loaded.name,
      environment: loaded.variables,
      services: Object.fromEntries(
        Object.entries(services).map(([name, service]) => [
          name,
          {
            provider: service.provider,
            dependsOn: Object.keys(service.depends_on ?? {}),
            environment: service.environment,
          },
        ]),
      ),
    }
    const options = { ...driver, cwd: exampleDir }
    for (const provider of ['db-secrets', 'app-secrets']) {
      const run = await runProviderStep(project, provider, 'up', options)
      expect(run.error).toBeUndefined()
      expect(run.argv).toContain('--env=dev')
      for (const [name, environment] of Object.entries(run.services))
        project.services[name]!.environment = environment
    }
    expect(project.services.db!.environment).toEqual({ POSTGRES_PASSWORD: dev.POSTGRES_PASSWORD })
    expect(project.services.app!.environment).toEqual({
      API_KEY: dev.API_KEY,
      POSTGRES_PASSWORD: dev.POSTGRES_PASSWORD,
    })
  })
})

describe('vault compose down and stop', () => {
  it.each(['down', 'stop'] as const)('%s exits 0, prints nothing and needs no vault', async (command) => {
    const project = stack({ env: 'dev', secrets: ['API_KEY'] })
    const run = await runProviderStep(project, 'secrets', command, { ...driver, cwd: elsewhere })
    expect(run.error).toBeUndefined()
    expect(run.argv).toEqual(['compose', '--project-name=homelab', command, 'secrets'])
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toBe('')
    expect(run.services.app).toEqual(project.services.app!.environment)
  })

  it('down under compose 2.36 (every option passed) still exits 0', async () => {
    const project = stack({ env: 'dev', secrets: ['API_KEY'], raw: false })
    const run = await runProviderStep(project, 'secrets', 'down', {
      ...driver,
      cwd: elsewhere,
      withMetadata: false,
    })
    expect(run.error).toBeUndefined()
    expect(run.exitCode).toBe(0)
  })
})
