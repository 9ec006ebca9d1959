/**
 * The everyday CLI where it needs a process, against a real `vault server` on 127.0.0.1: `vault run`
 * (values in, client secret and token out, the child's exit code, SIGTERM exactly once, Ctrl-C at a
 * terminal), canary secrets never shown under DEBUG=* (read once, at start-up) nor in a process
 * listing. Login, export, secrets and doctor run in process: test/unit/commands/.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenFilePath } from '../../src/client/token-store.js'
import { VaultApi } from '../../src/client/vault-api.js'
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
