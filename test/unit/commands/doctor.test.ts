/**
 * `vault doctor` in process (moved from the spawned test/e2e/doctor-v1-keys.test.ts and
 * cli-errors.test.ts): with no set-up, and with docker-compose v1 as the compose client (Debian's 1.29, the only client here):
 * like `render --check`, it names every key of the compose files, included files too, that v1
 * refuses, with file and line, and fails the check (exit 10); files v1 reads pass it.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExitCode } from '../../../src/errors.js'
import Doctor from '../../../src/commands/doctor.js'
import { runCommand } from '../../helpers/run-command.js'
import { createTempHome } from '../../helpers/temp-home.js'
import { canaryValues, startCliVault, type SeededVault } from '../../helpers/seeded-vault.js'

// a real server and a database initialised in the hook: seconds on a loaded machine
const serverStart = 60_000

const home = createTempHome()
const stacks: string[] = []
afterAll(() => {
  home.cleanup()
  for (const stack of stacks) rmSync(stack, { recursive: true, force: true })
})

function composeV2Answers(): boolean {
  try {
    execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function stack(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'vault-doctor-v1-'))
  stacks.push(directory)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text)
  return directory
}

async function doctor(directory: string) {
  const env = { ...home.env, VAULT_DOMAIN: 'http://127.0.0.1:1' }
  const result = await runCommand(Doctor, ['--stack-dir', directory, '--json'], { env, cwd: directory })
  const report = JSON.parse(result.stdout) as { checks: { id: string; status: string; detail: string }[] }
  return { exitCode: result.exitCode, check: report.checks.find((check) => check.id === 'compose-v1-keys') }
}

const v1Only = existsSync('/usr/bin/docker-compose') && !composeV2Answers()

const canary = 'CANARY-doctor-secret-91c2'
const base = { ...home.env, VAULT_CLIENT_ID: 'cid', VAULT_CLIENT_SECRET: canary }

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

// doctor asks the compose clients (docker-compose v1 is a Python program): seconds per run on a loaded machine
const slow = { timeout: 60_000 }

describe('vault doctor without a set-up', slow, () => {
  it('prints one line per check, fails the vault check and exits 10; --json has the same checks', async () => {
    const port = await closedPort()
    const env = { ...base, VAULT_DOMAIN: `http://127.0.0.1:${port}` }
    const text = await runCommand(Doctor, ['--stack-dir', home.dir], { env, cwd: home.dir })
    expect(text.exitCode).toBe(10)
    expect(text.stdout).toMatch(
      /^SKIP {2}credentials file present: the credentials come from the environment/m,
    )
    expect(text.stdout).toMatch(/^FAIL {2}vault reachable \(HTTP HEAD\): /m)
    const json = await runCommand(Doctor, ['--stack-dir', home.dir, '--json'], { env, cwd: home.dir })
    const result = JSON.parse(json.stdout) as { ok: boolean; checks: { id: string; status: string }[] }
    expect(result.ok).toBe(false)
    expect(result.checks.map((check) => check.id)).toEqual([
      'env-credentials',
      'credentials-file',
      'credentials-mode',
      'credentials-git',
      'vault-reachable',
      'credentials',
      'environment',
      'required-variables',
      'compose-client',
      'compose-v1-keys',
      'proxy',
    ])
    expect(json.stdout + json.stderr + text.stdout + text.stderr).not.toContain(canary)
  })
})

describe.skipIf(!v1Only)('vault doctor with docker-compose v1', slow, () => {
  it('names every key v1 refuses, with file and line, included files too', async () => {
    const directory = stack({
      'compose.yaml': [
        'name: shop',
        'include:',
        '  - extra.yaml',
        'services:',
        '  web:',
        '    image: alpine',
        '    depends_on:',
        '      db:',
        '        condition: service_started',
        '        required: false',
        '  db:',
        '    image: alpine',
      ].join('\n'),
      'extra.yaml': ['services:', '  worker:', '    image: alpine', '    develop:', '      watch: []'].join(
        '\n',
      ),
    })
    const { exitCode, check } = await doctor(directory)
    expect(exitCode).toBe(ExitCode.findings)
    expect(check?.status).toBe('fail')
    expect(check?.detail).toContain('4 key(s) docker-compose v1 refuses')
    expect(check?.detail).toContain(`${join(directory, 'compose.yaml')}:1: name`)
    expect(check?.detail).toContain(`${join(directory, 'compose.yaml')}:2: include`)
    expect(check?.detail).toContain(
      `${join(directory, 'compose.yaml')}:10: services.web.depends_on.db.required`,
    )
    expect(check?.detail).toContain(`${join(directory, 'extra.yaml')}:4: services.worker.develop`)
  })

  it('passes a file v1 reads', async () => {
    const directory = stack({
      'compose.yaml': 'services:\n  web:\n    image: alpine\n    ports: ["8080:80"]\n',
    })
    const { check } = await doctor(directory)
    expect(check).toMatchObject({ status: 'pass', detail: 'docker-compose v1 accepts every key' })
    execFileSync('/usr/bin/docker-compose', ['config', '-q'], { cwd: directory, stdio: 'ignore' })
  })
})

describe('vault doctor with a good set-up (moved from test/integration/cli-vault.test.ts)', slow, () => {
  let vault: SeededVault
  let env: Record<string, string>
  let home: SeededVault['home']
  let work: string
  beforeAll(async () => {
    vault = await startCliVault()
    ;({ env, home, work } = vault)
  }, serverStart)
  afterAll(async () => vault?.stop())

  const allCanaries = () => Object.values(canaryValues)
  function expectNoCanary(...texts: string[]) {
    for (const canary of allCanaries()) for (const text of texts) expect(text).not.toContain(canary)
  }

  it('passes every check of a good set-up, the proxy included; --json lists them', async () => {
    const stack = mkdtempSync(join(work, 'doctor-'))
    execFileSync('git', ['init', '-q', stack])
    const dotenv = ['VAULT_DOMAIN', 'VAULT_PROJECT_ID', 'VAULT_CLIENT_ID', 'VAULT_CLIENT_SECRET']
      .map((name) => `${name}=${env[name]}`)
      .join('\n')
    writeFileSync(join(stack, '.env'), `${dotenv}\n`)
    chmodSync(join(stack, '.env'), 0o600)
    const fixed = await runCommand(Doctor, ['--fix', '--env', 'dev', '--json'], { env: home.env, cwd: stack })
    expect(JSON.parse(fixed.stdout).checks[0]).toMatchObject({ id: 'fix-credentials', status: 'pass' })
    const credentials = join(stack, '.vault', 'credentials')
    writeFileSync(
      join(stack, 'compose.yaml'),
      'services:\n  app:\n    image: x\n    environment:\n      P: ${DATABASE_PASSWORD:?required}\n',
    )
    const proxy = createHttpServer((_request, response) => response.end('OK'))
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = proxy.address() as { port: number }
      const result = await runCommand(
        Doctor,
        ['--env', 'dev', '--json', '--proxy', `tcp://127.0.0.1:${port}`],
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
      const failing = await runCommand(Doctor, ['--env', 'dev'], { env: home.env, cwd: stack })
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
