/**
 * The proxy commands as a user runs them (built bin/run.js): check, rules, serve's startup errors, and
 * serve + healthcheck + SIGTERM against the real engine.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { freePort } from '../harness/ports.js'
import { runCli, runJs } from '../helpers/cli.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()

describe('vault proxy check and rules', () => {
  it.each([
    [['GET', '/v1.41/containers/json?all=1'], 0, 'allow GET /v1.41/containers/json', 'default rules line 4'],
    [['HEAD', '/_ping'], 0, 'allow HEAD /_ping', 'built-in line 2'],
    [
      ['POST', '/v1.41/containers/x/%2e%2e/%2e%2e/images/create'],
      10,
      'deny POST /v1.41/images/create',
      'no rule allows it',
    ],
    [
      ['--preset', 'read-only', 'POST', '/v1.41/containers/x/start'],
      10,
      'deny POST /v1.41/containers/x/start',
      'no rule',
    ],
    [['--rules', 'POST /x|/y', 'POST', '/y'], 0, 'allow POST /y', 'PROXY_RULES line 1'],
    [['--no-builtin-rules', '--rules', 'GET /x', 'GET', '/_ping'], 10, 'deny GET /_ping', 'no rule'],
    [['GET', '/_ping%zz'], 10, 'deny GET /_ping%zz', 'percent-escape'],
  ])('check %j exits %i', async (args, exitCode, stdout, stderr) => {
    const result = await runCli(['proxy', 'check', ...args])
    expect(result.exitCode).toBe(exitCode)
    expect(result.stdout).toBe(`${stdout}\n`)
    expect(result.stderr).toContain(stderr)
  })

  it('check --json returns the decision object', async () => {
    const result = await runCli(['proxy', 'check', '--json', 'DELETE', '/v1.41/volumes/x'])
    expect(result.exitCode).toBe(10)
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: 'deny', canonicalPath: '/v1.41/volumes/x' })
  })

  it('check reads PROXY_RULES_FILE and names the bad line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-cli-'))
    writeFileSync(join(dir, 'r.rules'), '# fine\nGET /a\nGET %NOPE%\n')
    const result = await runCli(['proxy', 'check', 'GET', '/a'], {
      env: { PROXY_RULES_FILE: join(dir, 'r.rules') },
    })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/r\.rules line 3: unknown variable %NOPE%/)
  })

  it('rules --preset prints the preset and warns on stderr about what it exposes', async () => {
    const result = await runCli(['proxy', 'rules', '--preset', 'management'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('GET,HEAD,POST %API_PREFIX_CONTAINERS%(/.*)?')
    expect(result.stderr).toContain('GET /containers/{id}/export is allowed')
    expect(result.stderr).toContain('environment, secrets included')
    expect(result.stdout).not.toContain('warning')
  })

  it('rules --preset read-only warns about nothing and says the environment is masked', async () => {
    const result = await runCli(['proxy', 'rules', '--preset', 'read-only'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('GET,HEAD %API_PREFIX_CONTAINERS%/json')
    expect(result.stderr).not.toContain('warning')
    expect(result.stderr).toContain('its values are masked')
  })

  it.each([
    [['--rules', 'GET /ok\nGET /bad('], /PROXY_RULES line 2: the pattern does not compile/],
    [['--backend-addr', 'http://x'], /PROXY_BACKEND_ADDR "http:\/\/x" is not an address/],
    [['--frontend-addr', 'tcp://:99999'], /PROXY_FRONTEND_ADDR/],
    [['--log-level', '9'], /PROXY_LOG_LEVEL "9"/],
    [['--rules-file', '/nonexistent/rules'], /cannot be read: ENOENT/],
    [['--compose-policy', '/nonexistent/compose.yaml'], /PROXY_COMPOSE_POLICY .*compose.yaml not found/],
    [['--compose-policy', 'compose.yaml', '--preset', 'monitoring'], /PROXY_COMPOSE_POLICY and PROXY_PRESET/],
  ])('serve %j stops at startup with the reason', async (args, message) => {
    const result = await runCli(['proxy', 'serve', ...args])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(message)
  })
})

describe.skipIf(!engine)(`vault proxy serve against the engine (${unavailableReason('engine')})`, () => {
  it('serves, answers the healthcheck, logs json, and stops on SIGTERM within the grace period', async () => {
    const port = await freePort()
    const env = { PATH: process.env.PATH, PROXY_LOG_FORMAT: 'json', PROXY_LOG_LEVEL: '7' }
    const serve = spawn(
      process.execPath,
      [
        runJs,
        'proxy',
        'serve',
        '--backend-addr',
        `unix://${engine!.socket}`,
        '--frontend-addr',
        `tcp://127.0.0.1:${port}`,
        '--shutdown-grace',
        '1',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stderr = ''
    serve.stderr.on('data', (chunk) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => serve.on('exit', (code) => resolve(code)))
    const health = () =>
      runCli(['proxy', 'healthcheck', '--frontend-addr', `tcp://127.0.0.1:${port}`, '--timeout', '500'])
    let result = await health()
    for (let i = 0; i < 50 && result.exitCode !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      result = await health()
    }
    expect(result).toMatchObject({ exitCode: 0, stdout: 'healthy (200)\n' })
    const lines = stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        msg: 'request',
        method: 'GET',
        path: '/_ping',
        status: 200,
        decision: 'allow',
      }),
    )
    const started = Date.now()
    serve.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(stderr).toContain('"msg":"stopped"')
    const after = await health()
    expect(after.exitCode).toBe(7)
  })
})
