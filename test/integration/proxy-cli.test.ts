/**
 * The proxy commands as a user runs them (built bin/run.js): serve + healthcheck + SIGTERM against the
 * real engine. check, rules and serve's startup errors run in process: test/unit/commands/proxy/.
 */
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { freePort } from '../harness/ports.js'
import { runCli, runJs } from '../helpers/cli.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()

describe('vault proxy serve stops at startup (the bundled serving process, not oclif)', () => {
  it.each([
    [['--compose-policy', '/nonexistent/compose.yaml'], /PROXY_COMPOSE_POLICY .*compose.yaml not found/],
    [['--compose-policy', 'compose.yaml', '--preset', 'monitoring'], /PROXY_COMPOSE_POLICY and PROXY_PRESET/],
    [
      ['--compose-policy', 'compose.yaml', '--learn', '/tmp/learned.rules'],
      /PROXY_COMPOSE_POLICY and PROXY_LEARN/,
    ],
  ])('serve %j exits 2 with the reason', async (args, message) => {
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
