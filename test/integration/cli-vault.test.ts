/**
 * The everyday CLI against a real `vault server` on 127.0.0.1 (the server helper's test helper):
 * login and the token cache, secrets list/get/set/delete/history/rollback, export of hostile values
 * read back by sh and compose's env-file reader, `vault run` (values in, client secret and token out,
 * exit codes, SIGTERM exactly once), and canary secrets never shown where they were not asked for.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenFilePath } from '../../src/client/token-store.js'
import { VaultApi } from '../../src/client/vault-api.js'
import { parseEnvFile } from '../../src/compose/env-file.js'
import { runCli, runJs } from '../helpers/cli.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { deploymentApi, startVaultServer } from '../helpers/vault-server.js'

const hostile: Record<string, string> = {
  H_DOLLAR: 'pa$word $HOME $$ ${NOT_EXPANDED} end$',
  H_QUOTES: `it's "quoted"`,
  H_BACKSLASH: 'C:\\path\\\\double\\',
  H_NEWLINES: 'line1\nline2\n\n',
  H_UNICODE: 'héllo ☃ 日本 🎉',
  H_SPACES: '  leading and trailing  ',
  H_EVERYTHING: ` it's "$x" \\ \n ☃ `,
}
const canaries = { CANARY_ONE: 'CANARY-7d1e-one', CANARY_TWO: 'CANARY-7d1e-two' }
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0
const counter = fileURLToPath(new URL('../fixtures/process/signal-counter.mjs', import.meta.url))

let server: Awaited<ReturnType<typeof startVaultServer>>
let home: TempHome
let env: Record<string, string>
let api: VaultApi
const work = mkdtempSync(join(tmpdir(), 'vault-cli-it-'))

beforeAll(async () => {
  server = await startVaultServer({})
  home = createTempHome()
  const credentials = server.deploymentCredentials
  env = {
    ...home.env,
    VAULT_DOMAIN: server.url,
    VAULT_PROJECT_ID: server.projectId,
    VAULT_CLIENT_ID: credentials.clientId,
    VAULT_CLIENT_SECRET: credentials.clientSecret,
  }
  api = deploymentApi(server, join(work, 'seed-state'))
  for (const [name, value] of Object.entries({ ...hostile, ...canaries, DATABASE_PASSWORD: 'db-pw-1' })) {
    await api.putSecret(name, value, 'dev')
  }
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

const allCanaries = () => Object.values(canaries)
function expectNoCanary(...texts: string[]) {
  for (const canary of allCanaries()) for (const text of texts) expect(text).not.toContain(canary)
}

describe('vault login / logout', () => {
  it('caches the token in a mode-600 file under XDG_STATE_HOME and says where, never the token', async () => {
    const result = await runCli(['login', '--json'], { env })
    expect(result.exitCode).toBe(0)
    const login = JSON.parse(result.stdout) as Record<string, unknown>
    expect(login).toMatchObject({ store: 'file', clientId: env.VAULT_CLIENT_ID })
    const file = tokenFilePath(home.env)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const cached = Object.values(
      JSON.parse(readFileSync(file, 'utf8')) as Record<string, { accessToken: string }>,
    )
    expect(cached).toHaveLength(1)
    expect(result.stdout + result.stderr).not.toContain(cached[0]!.accessToken)
    expect(readFileSync(file, 'utf8')).not.toContain(env.VAULT_CLIENT_SECRET)
  })

  it('lets export use the cached token without the client secret', async () => {
    const { VAULT_CLIENT_SECRET: _secret, ...withoutSecret } = env
    const result = await runCli(['export', '--env', 'dev', '--format', 'json'], { env: withoutSecret })
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ DATABASE_PASSWORD: 'db-pw-1' })
  })

  it('logout forgets the token; export without the secret then says "not logged in" (exit 3)', async () => {
    expect((await runCli(['logout'], { env })).exitCode).toBe(0)
    const { VAULT_CLIENT_SECRET: _secret, ...withoutSecret } = env
    const result = await runCli(['export', '--env', 'dev'], { env: withoutSecret })
    expect(result.exitCode).toBe(3)
    expect(result.stderr).toMatch(/not logged in/)
  })

  it('works in CI with no prior login when the credentials are in the environment', async () => {
    const fresh = createTempHome()
    try {
      const result = await runCli(['export', '--env', 'dev', '--format', 'json'], {
        env: { ...env, ...fresh.env },
      })
      expect(result.exitCode).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject(canaries)
    } finally {
      fresh.cleanup()
    }
  })

  it('refuses a wrong client secret with exit 4 and does not echo it', async () => {
    const fresh = createTempHome()
    try {
      const result = await runCli(['login'], {
        env: { ...env, ...fresh.env, VAULT_CLIENT_SECRET: 'CANARY-wrong-secret' },
      })
      expect(result.exitCode).toBe(4)
      expect(result.stdout + result.stderr).not.toContain('CANARY-wrong-secret')
    } finally {
      fresh.cleanup()
    }
  })
})

describe('vault export', () => {
  it('dotenv output is read back exactly by a POSIX shell and by compose', async () => {
    const result = await runCli(['export', '--env', 'dev'], { env })
    expect(result.exitCode).toBe(0)
    const file = join(work, 'exported.env')
    writeFileSync(file, result.stdout)
    const names = Object.keys(hostile)
    const script = `set -a; . "$1"; shift; for n in "$@"; do eval "printf '%s\\0' \\"\\$$n\\""; done`
    const values = execFileSync('sh', ['-c', script, 'sh', file, ...names], {
      env: { PATH: process.env.PATH },
    })
      .toString('utf8')
      .split('\0')
    expect(Object.fromEntries(names.map((name, i) => [name, values[i]]))).toEqual(hostile)
    const composeRead = parseEnvFile(result.stdout, () => undefined)
    expect(Object.fromEntries(names.map((name) => [name, composeRead[name]]))).toEqual(hostile)
  })

  it.each(['json', 'yaml', 'shell'] as const)('--format %s succeeds', async (format) => {
    const result = await runCli(['export', '--env', 'dev', '--format', format], { env })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('H_UNICODE')
  })

  it('--output-file writes a mode-600 file and nothing to stdout', async () => {
    const file = join(work, 'out.env')
    writeFileSync(file, 'old', { mode: 0o644 })
    const result = await runCli(['export', '--env', 'dev', '--output-file', file], { env })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe('')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(parseEnvFile(readFileSync(file, 'utf8'), () => undefined).H_QUOTES).toBe(hostile.H_QUOTES)
  })
})

describe('vault secrets', () => {
  it('set reads stdin, get prints the value alone, history lists versions, rollback restores', async () => {
    expect(
      (await runCli(['secrets', 'set', 'ROLL_ME', '--env', 'dev'], { env, input: 'first\n' })).exitCode,
    ).toBe(0)
    expect(
      (await runCli(['secrets', 'set', 'ROLL_ME', '--env', 'dev'], { env, input: 'second' })).exitCode,
    ).toBe(0)
    expect((await runCli(['secrets', 'get', 'ROLL_ME', '--env', 'dev'], { env })).stdout).toBe('second')
    const history = JSON.parse(
      (await runCli(['secrets', 'history', 'ROLL_ME', '--env', 'dev', '--json'], { env })).stdout,
    )
    expect(history.versions.map((entry: { version: number }) => entry.version)).toEqual([2, 1])
    const last = await runCli(['secrets', 'history', 'ROLL_ME', '--env', 'dev', '--last', '1'], { env })
    expect(last.stdout.trim().split('\n')).toHaveLength(2)
    expect(last.stdout).toMatch(/^2 +\S+ +\S+ \(identity:[^)]+\)/m)
    expect(history.versions[0].actorName).toBe('demo-deployment')
    expect(history.versions[0].actor).toBe(`identity:${history.versions[0].actor.slice(9)}`)
    expect(last.stdout).toContain(history.versions[0].actorName)
    expect((await runCli(['secrets', 'rollback', 'ROLL_ME', '1', '--env', 'dev'], { env })).exitCode).toBe(0)
    expect((await runCli(['secrets', 'get', 'ROLL_ME', '--env', 'dev'], { env })).stdout).toBe('first')
  })

  it('set --if-version with a stale version exits 6 and writes nothing', async () => {
    const result = await runCli(['secrets', 'set', 'ROLL_ME', '--env', 'dev', '--if-version', '1'], {
      env,
      input: 'x',
    })
    expect(result.exitCode).toBe(6)
    expect((await runCli(['secrets', 'get', 'ROLL_ME', '--env', 'dev'], { env })).stdout).toBe('first')
  })

  it('get of a missing secret exits 5; delete removes a secret', async () => {
    expect((await runCli(['secrets', 'get', 'NO_SUCH_SECRET', '--env', 'dev'], { env })).exitCode).toBe(5)
    expect((await runCli(['secrets', 'delete', 'ROLL_ME', '--env', 'dev'], { env })).exitCode).toBe(0)
    expect((await runCli(['secrets', 'get', 'ROLL_ME', '--env', 'dev'], { env })).exitCode).toBe(5)
  })

  it('an environment that does not exist is an error, not a silent default', async () => {
    const result = await runCli(['secrets', 'list', '--env', 'nope'], { env })
    expect([2, 5]).toContain(result.exitCode)
  })
})

describe('canary secrets are never shown where they were not asked for', () => {
  it.each([
    [['secrets', 'list', '--env', 'dev', '--json']],
    [['secrets', 'list', '--env', 'dev']],
    [['secrets', 'history', 'CANARY_ONE', '--env', 'dev', '--json']],
    [['secrets', 'get', 'NO_SUCH_SECRET', '--env', 'dev', '--json']],
    [['secrets', 'get', 'NO_SUCH_SECRET', '--env', 'dev']],
    [['rotate', '--due', '--env', 'dev', '--json']],
    [['login', '--json']],
    [['doctor', '--env', 'dev', '--json']],
    [['run', '--env', 'dev', '--', 'sh', '-c', 'exit 3']],
    [['export', '--env', 'nope']],
  ])('vault %j (with DEBUG=*)', async (args) => {
    const result = await runCli(args, { env: { ...env, DEBUG: '*' }, cwd: work })
    expectNoCanary(result.stdout, result.stderr)
  })

  it("no process listing shows a secret while vault run's child runs", async () => {
    // a duration no other process on the machine sleeps for, so the listing is taken while this one runs
    const seconds = `60.${String(process.pid).padStart(6, '0')}`
    const child = spawn(process.execPath, [runJs, 'run', '--env', 'dev', '--', 'sleep', seconds], {
      env: { PATH: process.env.PATH, ...env },
      stdio: 'ignore',
    })
    const exited = new Promise((resolve) => child.on('exit', resolve))
    let listing = ''
    for (let i = 0; i < 600 && !listing.includes(`sleep ${seconds}`); i++) {
      if (i > 0) await sleep(50)
      listing = execFileSync('ps', ['-eo', 'pid,args', '-ww']).toString('utf8')
    }
    child.kill('SIGTERM')
    await exited
    expect(listing).toContain(`sleep ${seconds}`)
    expectNoCanary(listing)
    expect(listing).not.toContain(env.VAULT_CLIENT_SECRET)
  })
})

describe('vault run', () => {
  it('gives the child the vault values, never the client secret or a token', async () => {
    const result = await runCli(['run', '--env', 'dev', '--no-mask', '--', 'sh', '-c', 'env'], { env })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('DATABASE_PASSWORD=db-pw-1')
    expect(result.stdout).not.toContain(env.VAULT_CLIENT_SECRET)
    expect(result.stdout).not.toMatch(/^VAULT_CLIENT_SECRET=/m)
    const cached = existsSync(tokenFilePath(home.env))
      ? Object.values(
          JSON.parse(readFileSync(tokenFilePath(home.env), 'utf8')) as Record<
            string,
            { accessToken: string }
          >,
        )
      : []
    for (const token of cached) expect(result.stdout).not.toContain(token.accessToken)
  })

  it.each([
    ['vault wins by default', [], 'db-pw-1'],
    ['--prefer-host-env', ['--prefer-host-env'], 'from-host'],
  ])('%s', async (_what, flags, expected) => {
    const result = await runCli(
      ['run', '--env', 'dev', '--no-mask', ...flags, '--', 'sh', '-c', 'printf %s "$DATABASE_PASSWORD"'],
      {
        env: { ...env, DATABASE_PASSWORD: 'from-host' },
      },
    )
    expect(result.stdout).toBe(expected)
  })

  it.each([
    ['exit 7', 7],
    ['exit 0', 0],
    ['kill -TERM $$', 143],
  ])('sh -c %j: the CLI exits %i', async (script, code) => {
    expect((await runCli(['run', '--env', 'dev', '--', 'sh', '-c', script], { env })).exitCode).toBe(code)
  })

  it("vault run -- sh -c 'exit 7' exits 7 with the environment from VAULT_ENV", async () => {
    expect(
      (await runCli(['run', '--', 'sh', '-c', 'exit 7'], { env: { ...env, VAULT_ENV: 'dev' } })).exitCode,
    ).toBe(7)
  })

  it('a SIGTERM sent to vault run reaches the child exactly once', async () => {
    const out = join(work, 'signals.json')
    const cli = spawn(
      process.execPath,
      [runJs, 'run', '--env', 'dev', '--', process.execPath, counter, out],
      {
        env: { PATH: process.env.PATH, ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    )
    const exit = new Promise<number | null>((resolve) => cli.on('exit', (code) => resolve(code)))
    for (let i = 0; i < 200 && !existsSync(`${out}.ready`); i++) await sleep(50)
    cli.kill('SIGTERM')
    expect(await exit).toBe(3)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ SIGTERM: 1, SIGINT: 0, SIGHUP: 0 })
  })

  it.runIf(hasScript)('one Ctrl-C typed at a terminal reaches the child once, not twice', async () => {
    const out = join(work, 'ctrl-c.json')
    const command = [process.execPath, runJs, 'run', '--env', 'dev', '--', process.execPath, counter, out]
      .map((word) => `'${word.replaceAll("'", `'\\''`)}'`)
      .join(' ')
    const terminal = spawn('script', ['-qec', `exec ${command}`, '/dev/null'], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['pipe', 'ignore', 'inherit'],
    })
    const exit = new Promise<number | null>((resolve) => terminal.on('exit', (code) => resolve(code)))
    for (let i = 0; i < 200 && !existsSync(`${out}.ready`); i++) await sleep(50)
    terminal.stdin!.write('\x03')
    const code = await exit
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ SIGTERM: 0, SIGINT: 1, SIGHUP: 0 })
    expect(code).toBe(3)
  })

  it('--only-referenced injects only what the compose files reference', async () => {
    const stack = mkdtempSync(join(work, 'stack-'))
    writeFileSync(
      join(stack, 'compose.yaml'),
      'services:\n  app:\n    image: x\n    environment:\n      P: ${DATABASE_PASSWORD}\n',
    )
    const result = await runCli(
      ['run', '--env', 'dev', '--no-mask', '--only-referenced', '--', 'sh', '-c', 'env'],
      {
        env,
        cwd: stack,
      },
    )
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('DATABASE_PASSWORD=db-pw-1')
    expect(result.stdout).not.toContain('CANARY_ONE=')
  })

  it('--check refuses to start when a required variable is missing (exit 3, child not run)', async () => {
    const stack = mkdtempSync(join(work, 'stack-'))
    writeFileSync(
      join(stack, 'compose.yaml'),
      'services:\n  app:\n    image: x\n    environment:\n      P: ${MISSING_ONE:?set it}\n',
    )
    const marker = join(stack, 'started')
    const result = await runCli(['run', '--env', 'dev', '--check', '--', 'touch', marker], {
      env,
      cwd: stack,
    })
    expect(result.exitCode).toBe(3)
    expect(result.stderr).toMatch(/MISSING_ONE/)
    expect(existsSync(marker)).toBe(false)
  })
})

describe('vault doctor', () => {
  it('passes every check of a good set-up, the proxy included; --json lists them', async () => {
    const stack = mkdtempSync(join(work, 'doctor-'))
    execFileSync('git', ['init', '-q', stack])
    const dotenv = ['VAULT_DOMAIN', 'VAULT_PROJECT_ID', 'VAULT_CLIENT_ID', 'VAULT_CLIENT_SECRET']
      .map((name) => `${name}=${env[name]}`)
      .join('\n')
    writeFileSync(join(stack, '.env'), `${dotenv}\n`)
    chmodSync(join(stack, '.env'), 0o600)
    const fixed = await runCli(['doctor', '--fix', '--env', 'dev', '--json'], { env: home.env, cwd: stack })
    expect(JSON.parse(fixed.stdout).checks[0]).toMatchObject({ id: 'fix-credentials', status: 'pass' })
    const credentials = join(stack, '.vault', 'credentials')
    writeFileSync(
      join(stack, 'compose.yaml'),
      'services:\n  app:\n    image: x\n    environment:\n      P: ${DATABASE_PASSWORD:?required}\n',
    )
    const proxy = createServer((_request, response) => response.end('OK'))
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = proxy.address() as { port: number }
      const result = await runCli(
        ['doctor', '--env', 'dev', '--json', '--proxy', `tcp://127.0.0.1:${port}`],
        {
          env: home.env,
          cwd: stack,
        },
      )
      const report = JSON.parse(result.stdout) as { ok: boolean; checks: { id: string; status: string }[] }
      expect(Object.fromEntries(report.checks.map((check) => [check.id, check.status]))).toEqual({
        'env-credentials': 'pass',
        'credentials-file': 'pass',
        'credentials-mode': 'pass',
        'credentials-git': 'pass',
        'vault-reachable': 'pass',
        credentials: 'pass',
        environment: 'pass',
        'required-variables': 'pass',
        'compose-client': 'pass',
        'compose-v1-keys': 'pass',
        proxy: 'pass',
      })
      expect(result.exitCode).toBe(0)
      chmodSync(credentials, 0o644)
      writeFileSync(
        join(stack, 'compose.yaml'),
        'services:\n  app:\n    image: x\n    environment:\n      P: ${NOT_IN_VAULT:?required}\n',
      )
      const failing = await runCli(['doctor', '--env', 'dev'], { env: home.env, cwd: stack })
      expect(failing.exitCode).toBe(10)
      expect(failing.stdout).toMatch(/^FAIL {2}credentials file mode 600: .*mode 644/m)
      expect(failing.stdout).toMatch(
        /^FAIL {2}required variables in the vault: missing in the vault: NOT_IN_VAULT/m,
      )
      expectNoCanary(result.stdout, result.stderr, failing.stdout, failing.stderr)
    } finally {
      proxy.close()
    }
  })
})
