/**
 * `vault run --watch -- docker-compose up -d` on the harness's real Docker engine: after a change of
 * DATABASE_PASSWORD, exactly the services that use it (db, app) are recreated with the new value and
 * worker is left alone; SIGTERM then ends the watch with exit 0 and the stack keeps running.
 */
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultApi } from '../../src/client/vault-api.js'
import { runCli, runJs } from '../helpers/cli.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { waitForWatchers } from '../helpers/event-feed.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import {
  deploymentApi,
  startVaultServer,
  type TestVault,
  deploymentVariables,
} from '../helpers/vault-server.js'

const engine = engineOrNull()
const fixture = fileURLToPath(new URL('../fixtures/stacks/rotate', import.meta.url))

describe.skipIf(!engine)(
  `vault run --watch with compose on a real engine (${unavailableReason('engine')})`,
  () => {
    let server: TestVault
    let home: TempHome
    let api: VaultApi
    let stack: string
    let env: Record<string, string>

    const docker = (...args: string[]) =>
      execFileSync('docker', args, { env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost } })
        .toString('utf8')
        .trim()
    const project = () =>
      stack
        .split('/')
        .at(-1)!
        .toLowerCase()
        .replace(/[^a-z0-9_-]/g, '')
    const containerId = (service: string) =>
      docker(
        'ps',
        '-q',
        '--no-trunc',
        '--filter',
        `label=com.docker.compose.service=${service}`,
        '--filter',
        `label=com.docker.compose.project=${project()}`,
      )
    const ids = () =>
      Object.fromEntries(['db', 'app', 'worker'].map((service) => [service, containerId(service)]))
    const containerEnv = (service: string, name: string) =>
      docker('exec', containerId(service), 'sh', '-c', `printf %s "$${name}"`)

    beforeAll(async () => {
      server = await startVaultServer({})
      home = createTempHome()
      stack = mkdtempSync('/tmp/vaultwatch')
      cpSync(fixture, stack, { recursive: true })
      api = deploymentApi(server, join(home.dir, 'api-state'))
      env = {
        ...home.env,
        DOCKER_HOST: engine!.dockerHost,
        ...deploymentVariables(server),
      }
      await api.putSecret('DATABASE_PASSWORD', 'db-pw-watch-1', 'dev')
      await api.putSecret('AUTH_JWT_SECRET', 'jwt-watch-1', 'dev')
    })

    afterAll(async () => {
      if (stack) {
        await runCli(['run', '--env', 'dev', '--', 'docker-compose', 'down', '-t', '1'], { env, cwd: stack })
        rmSync(stack, { recursive: true, force: true })
      }
      await server?.stop()
      home?.cleanup()
    })

    it('a change recreates exactly the services that use the secret, with the new value', async () => {
      const child = spawn(
        process.execPath,
        [runJs, 'run', '--env', 'dev', '--watch', '--', 'docker-compose', 'up', '-d'],
        {
          cwd: stack,
          env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let output = ''
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      const waitFor = async (pattern: RegExp) => {
        for (let attempt = 0; attempt < 600 && !pattern.test(output); attempt++) {
          if (child.exitCode !== null) break
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        expect(output).toMatch(pattern)
      }
      try {
        await waitFor(/watching for changes/)
        expect(containerEnv('db', 'POSTGRES_PASSWORD')).toBe('db-pw-watch-1')
        const before = ids()
        await waitForWatchers(server)
        await api.patchSecret('DATABASE_PASSWORD', 'db-pw-watch-2', 'dev')
        await waitFor(/recreating app, db\n {2}app: running, ready\n {2}db: running \(healthy\), ready\n/)
        const after = ids()
        expect(after.db).not.toBe(before.db)
        expect(after.app).not.toBe(before.app)
        expect(after.worker).toBe(before.worker)
        expect(containerEnv('db', 'POSTGRES_PASSWORD')).toBe('db-pw-watch-2')
        expect(containerEnv('app', 'DB_PASSWORD')).toBe('db-pw-watch-2')
        expect(containerEnv('app', 'JWT_SECRET')).toBe('jwt-watch-1')
        expect(output).not.toContain('db-pw-watch')
        child.kill('SIGTERM')
        expect(await exited).toBe(0)
        expect(ids().db).toBe(after.db)
      } finally {
        child.kill('SIGKILL')
      }
    })
  },
)
