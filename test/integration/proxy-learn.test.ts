/**
 * Learning mode as a user runs it: `vault proxy serve --learn FILE` (built bin/run.js) in front of the
 * private engine, with rules that allow only the container list; the real `docker` client does ps,
 * inspect, logs, restart, and a create that needs NET_ADMIN and a bind mount, then rm. Everything is
 * forwarded and logged "would refuse"; the warning comes at start and again at the (injected) interval;
 * SIGTERM writes FILE with mode 600. The proxy is then started enforcing with FILE and the allowances it
 * names: the same traffic passes, and requests of kinds not seen (pause, export, image list, a
 * privileged create) are refused.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../harness/ports.js'
import { runJs } from '../helpers/cli.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const suffix = Math.random().toString(36).slice(2, 8)
const watched = `learn-watched-${suffix}`
const created = `learn-created-${suffix}`

function docker(args: string[], dockerHost: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'docker',
      args,
      { env: { ...process.env, DOCKER_HOST: dockerHost }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

interface Serving {
  child: ChildProcess
  port: number
  stderr: () => string
  exited: Promise<number | null>
}

/** Starts `vault proxy serve` with `args` on a free loopback port; resolves once it answers healthy. */
async function serve(args: string[]): Promise<Serving> {
  const port = await freePort()
  const child = spawn(
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
      '--log-format',
      'json',
      ...args,
    ],
    { env: { PATH: process.env.PATH }, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  // readiness only: the healthcheck in this process
  const health = () =>
    runCommandLine(['proxy', 'healthcheck', '--frontend-addr', `tcp://127.0.0.1:${port}`, '--timeout', '500'])
  let result = await health()
  for (let i = 0; i < 50 && result.exitCode !== 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    result = await health()
  }
  expect(result.exitCode, stderr).toBe(0)
  return { child, port, stderr: () => stderr, exited }
}

const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe.skipIf(!engine)(
  `vault proxy serve --learn against the engine (${unavailableReason('engine')})`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-learn-'))
    const bindDir = join(dir, 'data')
    const learned = join(dir, 'learned.rules')
    const running: Serving[] = []

    /** The traffic of the consumer being learned: every command must succeed through the proxy. */
    async function consumerTraffic(host: string) {
      for (const args of [
        ['ps'],
        ['inspect', '--format', '{{.Name}}', watched],
        ['logs', watched],
        ['restart', '-t', '0', watched],
        [
          'create',
          '--name',
          created,
          '--cap-add',
          'NET_ADMIN',
          '-v',
          `${bindDir}:/data`,
          engine!.busyboxImage,
          'true',
        ],
        ['rm', created],
      ]) {
        const result = await docker(args, host)
        expect(result, `docker ${args.join(' ')}`).toMatchObject({ code: 0 })
      }
    }

    beforeAll(async () => {
      mkdirSync(bindDir)
      const started = await docker(
        [
          'run',
          '-d',
          '--name',
          watched,
          '--network',
          'none',
          engine!.busyboxImage,
          'sh',
          '-c',
          'echo hello; sleep 600',
        ],
        engine!.dockerHost,
      )
      expect(started.code, started.stderr).toBe(0)
    })

    afterAll(async () => {
      for (const serving of running) serving.child.kill('SIGKILL')
      await docker(['rm', '-f', watched, created], engine!.dockerHost)
      rmSync(dir, { recursive: true, force: true })
    })

    it('forwards and records, warns, writes FILE on SIGTERM; enforcing with FILE allows that traffic and no other', async () => {
      const learning = await serve([
        '--rules',
        'GET %API_PREFIX_CONTAINERS%/json',
        '--log-level',
        '3',
        '--learn',
        learned,
        '--learn-warn-every',
        '1',
      ])
      running.push(learning)
      await consumerTraffic(`tcp://127.0.0.1:${learning.port}`)
      const warned = () =>
        jsonLines(learning.stderr()).filter((line) => String(line.msg).startsWith('LEARN MODE'))
      for (let i = 0; i < 100 && warned().length < 2; i++)
        await new Promise((resolve) => setTimeout(resolve, 100))
      expect(warned().length).toBeGreaterThanOrEqual(2)
      expect(warned()[0]).toMatchObject({ level: 'warning', file: learned })

      learning.child.kill('SIGTERM')
      expect(await learning.exited).toBe(0)
      expect(statSync(learned).mode & 0o777).toBe(0o600)
      const text = readFileSync(learned, 'utf8')
      const rules = text.split('\n').filter((line) => /^[A-Z]+(?:,[A-Z]+)* /.test(line))
      expect([...rules].sort()).toEqual(
        [
          'GET %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/(?:json|logs)',
          'POST %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/restart',
          'DELETE %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%',
          'POST %API_PREFIX_CONTAINERS%/create',
          'GET %API_PREFIX_CONTAINERS%/json',
        ].sort(),
      )
      expect(text).not.toContain('.*')
      const flags = /^# {3}flags: (.*)$/m.exec(text)?.[1]
      expect(flags).toBe(`--allow-cap NET_ADMIN --allow-bind-from ${bindDir}`)
      expect(learning.stderr()).toContain('"msg":"learned"')

      const enforcing = await serve(['--rules-file', learned, ...flags!.split(' ')])
      running.push(enforcing)
      const host = `tcp://127.0.0.1:${enforcing.port}`
      await consumerTraffic(host)
      for (const args of [
        ['pause', watched],
        ['export', '-o', join(dir, 'x.tar'), watched],
        ['images'],
        ['create', '--privileged', engine!.busyboxImage, 'true'],
      ]) {
        const result = await docker(args, host)
        expect(result.code, `docker ${args.join(' ')}`).not.toBe(0)
        expect(result.stderr).toContain('vault proxy refused')
      }
      enforcing.child.kill('SIGTERM')
      expect(await enforcing.exited).toBe(0)
    })

    it('logs each forwarded refusal as "would refuse" with the client, rule set and reason; SIGINT writes FILE', async () => {
      const learning = await serve([
        '--rules',
        'GET %API_PREFIX_CONTAINERS%/json',
        '--learn',
        join(dir, 'second.rules'),
      ])
      running.push(learning)
      const result = await docker(
        ['inspect', '--format', '{{.Name}}', watched],
        `tcp://127.0.0.1:${learning.port}`,
      )
      expect(result.stdout.trim()).toBe(`/${watched}`)
      learning.child.kill('SIGINT')
      expect(await learning.exited).toBe(0)
      expect(readFileSync(join(dir, 'second.rules'), 'utf8')).toContain(
        '\nGET %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/json\n',
      )
      expect(jsonLines(learning.stderr())).toContainEqual(
        expect.objectContaining({
          level: 'warning',
          msg: 'would refuse',
          method: 'GET',
          path: expect.stringMatching(new RegExp(`/containers/${watched}/json$`)),
          client: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
          ruleSet: '*',
          reason: 'no rule allows it',
        }),
      )
    })
  },
)
