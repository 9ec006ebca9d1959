/**
 * Issue 34 section 3, with the real docker-compose (1.29, Debian's) on the private engine: the example
 * stack (examples/stack/compose.yaml as committed, plus one override file that points the proxy service's
 * socket bind at the private engine's socket) goes up, restarts, is listed, logs and goes down through
 * `vault proxy serve` configured by PROXY_* variables with that same project as its compose policy (the
 * override also publishes two of the gateway's ports on the loopback). Then copies of the file with one
 * service made privileged, given one more bind, one more published port, or another service's name as
 * an alias, are refused: compose prints the proxy's message naming the service and the field, the proxy
 * logs the refusal with the client, the rule set and the field, and the engine holds no container of
 * that service. What the
 * private engine cannot run (no registry) is stood in for: every image of the stack is a busybox image
 * that sleeps until stopped, tagged with the stack's image names.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../harness/ports.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const stackDir = fileURLToPath(new URL('../../examples/stack/', import.meta.url))
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
const project = 'policytest'
const standIn = 'vault-test/stand-in:latest'
const stackImages = [
  'ghcr.io/gethomepage/homepage:v1.4.0',
  'amir20/dozzle:v8.13.0',
  'traefik:v3.6',
  'postgres:15-alpine',
  'authelia/authelia:4.39',
  'restic/restic:0.18.0',
]
const services = ['auth', 'backup', 'dashboard', 'database', 'gateway', 'logviewer', 'socket-proxy']

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { env, timeout: 180_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) || 1 : 0, stdout, stderr }),
    )
    if (input !== undefined) child.stdin!.end(input)
  })
}

describe.skipIf(!engine)(
  `compose policy with docker-compose on the engine (${unavailableReason('engine')})`,
  () => {
    let dir: string
    let proxy: ChildProcess
    let proxyLog = ''
    let stackEnv: NodeJS.ProcessEnv
    let gatewayPort: number
    const docker = (...args: string[]) =>
      run('docker', ['-H', engine!.dockerHost, ...args], { PATH: process.env.PATH, DOCKER_BUILDKIT: '0' })
    const compose = (files: string[], ...args: string[]) =>
      run('docker-compose', [...files.flatMap((file) => ['-f', file]), ...args], stackEnv)
    const committed = () => [join(stackDir, 'compose.yaml'), join(dir, 'override.yaml')]
    /** The project's containers on the engine: service name and whether it runs. */
    const containers = async () => {
      const listed = await docker(
        'ps',
        '-a',
        '--filter',
        `label=com.docker.compose.project=${project}`,
        '--format',
        '{{.Label "com.docker.compose.service"}} {{.State}}',
      )
      return listed.stdout.split('\n').filter(Boolean).sort()
    }
    /** A copy of the stack (compose.yaml and the common.yaml it extends) with compose.yaml edited. */
    const editedCopy = (name: string, edit: (text: string) => string) => {
      const copy = join(dir, name)
      cpSync(stackDir, copy, { recursive: true })
      const file = join(copy, 'compose.yaml')
      const before = readFileSync(file, 'utf8')
      const after = edit(before)
      expect(after).not.toBe(before)
      writeFileSync(file, after)
      return [file, join(dir, 'override.yaml')]
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'vault-compose-policy-'))
      writeFileSync(
        join(dir, 'Dockerfile'),
        `FROM ${engine!.busyboxImage}\nENTRYPOINT ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]\n`,
      )
      const built = await docker('build', '-q', '-t', standIn, dir)
      expect(built.code, built.stderr).toBe(0)
      for (const image of stackImages) expect((await docker('tag', standIn, image)).code).toBe(0)
      // The changes to the stack: its proxy service binds the private engine's socket, not the host's,
      // and the gateway publishes two ports on the loopback (a host port, and one the engine picks), so
      // that what docker-compose 1.29 sends for declared ports goes through the policy too.
      gatewayPort = await freePort()
      writeFileSync(
        join(dir, 'override.yaml'),
        `services:\n  socket-proxy:\n    volumes:\n      - ${engine!.socket}:/var/run/docker.sock:ro\n` +
          `  gateway:\n    ports:\n      - 127.0.0.1:${gatewayPort}:80\n      - 127.0.0.1::443\n`,
      )
      const port = await freePort()
      // The values `vault run` would give the stack from the vault.
      stackEnv = {
        PATH: process.env.PATH,
        COMPOSE_PROJECT_NAME: project,
        VAULT_IMAGE: standIn,
        PUID: '1000',
        PGID: '1000',
        GATEWAY_API_USER: 'admin',
        GATEWAY_API_PASSWORD: 'gateway-canary',
        GATEWAY_TRUSTED_IPS: '127.0.0.1',
        GATEWAY_DOMAIN: 'example.test',
        DATABASE_PASSWORD: 'database-canary',
        AUTH_DB_PASSWORD: 'auth-canary',
        AUTH_JWT_SECRET: 'jwt-canary',
        AUTH_SESSION_SECRET: 'session-canary',
        AUTH_STORAGE_ENCRYPTION_KEY: 'storage-canary',
        DOMAINNAME: 'example.test',
        DATA_DIR: join(dir, 'data'),
        BACKUP_REPOSITORY: 'b2:bucket',
        BACKUP_PASSWORD: 'backup-canary',
        OBJSTORE_ACCOUNT_ID: 'account',
        OBJSTORE_ACCOUNT_KEY: 'objstore-canary',
        MESSENGER_BOT_TOKEN: '',
        MESSENGER_CHAT_ID: '',
        DOCKER_HOST: `tcp://127.0.0.1:${port}`,
      }
      proxy = spawn(process.execPath, [runJs, 'proxy', 'serve'], {
        env: {
          ...stackEnv,
          DOCKER_HOST: undefined,
          // split as COMPOSE_FILE is: at the path separator
          PROXY_COMPOSE_POLICY: committed().join(':'),
          PROXY_BACKEND_ADDR: engine!.dockerHost,
          PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
          PROXY_LOG_LEVEL: '6',
          PROXY_SHUTDOWN_GRACE: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      proxy.stdout!.on('data', (chunk: Buffer) => (proxyLog += chunk.toString()))
      proxy.stderr!.on('data', (chunk: Buffer) => (proxyLog += chunk.toString()))
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (/msg="compose policy"/.test(proxyLog)) return resolve()
          if (proxy.exitCode !== null) return reject(new Error(`the proxy exited: ${proxyLog}`))
          setTimeout(check, 50)
        }
        check()
      })
    }, 180_000)

    afterAll(async () => {
      if (stackEnv) await compose(committed(), 'down', '--timeout', '1').catch(() => undefined)
      if (proxy && proxy.exitCode === null) {
        const exited = new Promise((resolve) => proxy.once('exit', resolve))
        proxy.kill('SIGTERM')
        await exited
      }
      if (dir) rmSync(dir, { recursive: true, force: true })
    }, 120_000)

    it('loads the project from the PROXY_* settings: its name, files and services', () => {
      expect(proxyLog).toMatch(
        new RegExp(
          `msg="compose policy" project=${project} files=\\S*examples/stack/compose.yaml,\\S*override.yaml services=${services.join(',')}`,
        ),
      )
    })

    it('lets docker-compose bring the stack up, restart it, list it, show its logs and take it down', async () => {
      const up = await compose(committed(), 'up', '-d')
      expect(up.code, up.stderr).toBe(0)
      expect(await containers()).toEqual(services.map((service) => `${service} running`))
      const published = await compose(committed(), 'port', 'gateway', '80')
      expect(published.stdout.trim()).toBe(`127.0.0.1:${gatewayPort}`)
      const restart = await compose(committed(), 'restart', '--timeout', '1')
      expect(restart.code, restart.stderr).toBe(0)
      expect(restart.stderr).toMatch(/Restarting policytest_database_1 +\.\.\. done/)
      const ps = await compose(committed(), 'ps')
      expect(ps.code, ps.stderr).toBe(0)
      for (const service of services) expect(ps.stdout).toMatch(new RegExp(`${project}_${service}_1 .* Up`))
      const logs = await compose(committed(), 'logs', '--tail', '5', 'database')
      expect(logs.code, logs.stderr).toBe(0)
      // A recreate: 1.29 stops the old container, renames it, creates the new one and removes the old.
      const recreate = await compose(
        committed(),
        'up',
        '-d',
        '--force-recreate',
        '--timeout',
        '1',
        'database',
      )
      expect(recreate.code, recreate.stderr).toBe(0)
      expect(recreate.stderr).toMatch(/Recreating policytest_database_1 +\.\.\. done/)
      const down = await compose(committed(), 'down', '--timeout', '1')
      expect(down.code, down.stderr).toBe(0)
      expect(await containers()).toEqual([])
      const networks = await docker(
        'network',
        'ls',
        '--filter',
        `label=com.docker.compose.project=${project}`,
        '-q',
      )
      expect(networks.stdout.trim()).toBe('')
      expect(proxyLog).not.toMatch(/decision=deny/)
    }, 300_000)

    it.each([
      {
        change: 'the database made privileged',
        edit: (text: string) =>
          text.replace(
            '    image: postgres:15-alpine\n',
            '    image: postgres:15-alpine\n    privileged: true\n',
          ),
        service: 'database',
        message:
          'compose policy: service "database" does not declare privileged: true (HostConfig.Privileged)',
        field: 'HostConfig.Privileged',
      },
      {
        change: 'one more bind on the backup',
        edit: (text: string) =>
          text.replace(
            '      - ${DATA_DIR:?}:/source:ro\n',
            '      - ${DATA_DIR:?}:/source:ro\n      - /etc:/host-etc:ro\n',
          ),
        service: 'backup',
        message:
          /compose policy: service "backup" does not declare a bind of "\/etc" at "\/host-etc" \(HostConfig\.Binds\[\d\]\)/,
        field: /HostConfig\.Binds\[\d\]/,
      },
      {
        change: 'a published port on the database',
        edit: (text: string) =>
          text.replace(
            '    image: postgres:15-alpine\n',
            "    image: postgres:15-alpine\n    ports:\n      - '5432:5432'\n",
          ),
        service: 'database',
        message:
          'compose policy: service "database" does not publish 5432/tcp (HostConfig.PortBindings.5432/tcp[0] "0.0.0.0:5432")',
        field: 'HostConfig.PortBindings.5432/tcp',
      },
      {
        change: "the gateway's port also on every address",
        edit: (text: string) =>
          text.replace(
            '    image: traefik:v3.6\n',
            "    image: traefik:v3.6\n    ports:\n      - '8080:80'\n",
          ),
        service: 'gateway',
        message:
          /compose policy: service "gateway" publishes 80\/tcp only at 127\.0\.0\.1:\d+, not "0\.0\.0\.0:8080" \(HostConfig\.PortBindings\.80\/tcp\[\d\]\)/,
        field: 'HostConfig.PortBindings.80/tcp',
      },
      {
        change: "the database's name as an alias of the backup",
        edit: (text: string) =>
          text.replace(
            '      - ${DATA_DIR:?}:/source:ro\n    networks:\n      - backend\n',
            '      - ${DATA_DIR:?}:/source:ro\n    networks:\n      backend:\n        aliases: [database]\n',
          ),
        service: 'backup',
        message:
          /compose policy: service "backup" does not declare alias "database" on network "policytest_backend" \(NetworkingConfig\.EndpointsConfig\.policytest_backend\.Aliases\[\d\]\)/,
        field: 'NetworkingConfig.EndpointsConfig.policytest_backend.Aliases',
      },
    ])(
      'refuses the stack with $change, naming the service and the field',
      async ({ edit, service, message, field }) => {
        try {
          const logged = proxyLog.length
          const up = await compose(editedCopy(service, edit), 'up', '-d', service)
          expect(up.code).not.toBe(0)
          expect(up.stderr).toContain(
            `Cannot create container for service ${service}: vault proxy refused POST /v1.41/containers/create: `,
          )
          if (typeof message === 'string') expect(up.stderr).toContain(message)
          else expect(up.stderr).toMatch(message)
          expect(await containers()).toEqual([])
          const refusal = proxyLog
            .slice(logged)
            .split('\n')
            .find((line) => line.includes('decision=deny'))!
          expect(refusal).toMatch(/client=127\.0\.0\.1:\d+ /)
          expect(refusal).toContain('ruleSet=compose-policy')
          expect(refusal).toMatch(
            new RegExp(
              `field=${typeof field === 'string' ? field.replace(/[.[\]]/g, '\\$&') : field.source}`,
            ),
          )
        } finally {
          await compose(committed(), 'down', '--timeout', '1')
        }
      },
      300_000,
    )
  },
)
