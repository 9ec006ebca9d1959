/**
 * The vault server's admin side and its extras, against real components: `vault project create`
 * under DEBUG=* (the built CLI; the admin commands themselves run in process: test/unit/commands/), webhooks delivered to a real receiver on 127.0.0.1, HTTPS with a
 * real certificate, ENCRYPTION_KEY rotation under a running server, secret rotation and revocation.
 */
import { execFileSync } from 'node:child_process'
import { createHmac, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  adminCreateWebhook,
  adminDisableWebhook,
  adminListWebhooks,
  adminRotateEncryptionKey,
  adminRotateSecret,
  adminRevokeIdentity,
} from '../../src/server/admin.js'
import { startVault } from '../../src/server/server.js'
import ServerInit from '../../src/commands/server/init.js'
import { runCli } from '../helpers/cli.js'
import { runCommand } from '../helpers/run-command.js'
import { createDatabase, postgresOrNull } from '../helpers/components.js'
import { startVaultServer, type TestVault } from '../helpers/vault-server.js'

async function patch(vault: TestVault, token: string, name: string, value: string, url = vault.url) {
  return fetch(`${url}/api/v1/secrets/${name}?environment=dev`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ value }),
  })
}

describe('vault project create under DEBUG=* (built CLI: the debug output is set up at start-up)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-project-debug-'))
  const encryptionKey = randomBytes(32).toString('hex')
  const env = { DB_URL: `sqlite://${join(dir, 'vault.db')}`, ENCRYPTION_KEY: encryptionKey }

  it('--write-env --json prints the client secret nowhere, not even in the debug output', async () => {
    const init = await runCommand(
      ServerInit,
      ['--admin-user', 'admin', '--admin-password-stdin', '--project', 'first'],
      { env, input: 'the first admin password' },
    )
    expect(init.exitCode, init.stderr).toBe(0)
    const stack = join(dir, 'fifth')
    const written = await runCli(
      ['project', 'create', 'fifth', '--site-url', 'http://127.0.0.1:8200', '--write-env', stack, '--json'],
      { env: { ...env, DEBUG: '*' } },
    )
    expect(written.exitCode, written.stderr).toBe(0)
    expect(JSON.parse(written.stdout)).not.toHaveProperty('clientSecret')
    const secret = /^VAULT_CLIENT_SECRET=(vs_\S+)$/m.exec(
      readFileSync(join(stack, '.vault', 'credentials'), 'utf8'),
    )?.[1]
    expect(secret).toMatch(/^vs_/)
    expect(written.stdout + written.stderr).not.toContain(secret)
    expect(written.stdout + written.stderr).not.toContain(encryptionKey)
  })
})

const postgres = postgresOrNull()

describe.each([
  { adapter: 'sqlite', available: true },
  { adapter: 'postgres', available: postgres !== null },
])('a running vault on $adapter', ({ adapter, available }) => {
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    if (!available) return
    vault = await startVaultServer({
      dbUrl: adapter === 'postgres' ? await createDatabase(postgres!) : undefined,
      allowPrivateWebhooks: true,
      // the webhook worker looks every 50 ms and retries 100 ms after a failure (1 s by default)
      timings: { webhook: { pollMs: 50, retryBaseMs: 100 } },
    })
    token = await vault.token(vault.deploymentCredentials)
  })
  afterAll(async () => {
    await vault?.stop()
  })
  const admin = () => ({ dbUrl: vault.dbUrl, encryptionKey: vault.encryptionKey })

  describe.skipIf(!available)('(components available)', () => {
    it.each([
      [
        'form body',
        'application/x-www-form-urlencoded',
        (id: string, secret: string) =>
          new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: id,
            client_secret: secret,
          }).toString(),
        {},
      ],
      [
        'JSON body',
        'application/json',
        (id: string, secret: string) =>
          JSON.stringify({ grant_type: 'client_credentials', client_id: id, client_secret: secret }),
        {},
      ],
      [
        'HTTP Basic',
        'application/x-www-form-urlencoded',
        () => 'grant_type=client_credentials',
        { basic: true },
      ],
    ])('issues tokens for credentials in a %s', async (_label, type, body, options) => {
      const { clientId, clientSecret } = vault.deploymentCredentials
      const response = await fetch(`${vault.url}/api/v1/auth/token`, {
        method: 'POST',
        headers: {
          'content-type': type,
          ...('basic' in options
            ? { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` }
            : {}),
        },
        body: body(clientId, clientSecret),
      })
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ token_type: 'Bearer', expires_in: 900 })
    })

    it('rejects a grant type other than client_credentials', async () => {
      const response = await fetch(`${vault.url}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=password',
      })
      expect([response.status, ((await response.json()) as { error: string }).error]).toEqual([
        400,
        'unsupported_grant_type',
      ])
    })

    it('kills the tokens of an identity whose secret is rotated or which is revoked', async () => {
      const rotating = await vault.createIdentity('rotating', 'dev=read')
      const revoked = await vault.createIdentity('revoked', 'dev=read')
      const rotatingToken = await vault.token(rotating)
      const revokedToken = await vault.token(revoked)
      const rotatedSecret = await adminRotateSecret(admin(), vault.projectId, 'rotating')
      await adminRevokeIdentity(admin(), vault.projectId, revoked.clientId)
      for (const dead of [rotatingToken, revokedToken]) {
        expect(
          (
            await fetch(`${vault.url}/api/v1/secrets?environment=dev`, {
              headers: { authorization: `Bearer ${dead}` },
            })
          ).status,
        ).toBe(401)
      }
      await expect(vault.token(rotating)).rejects.toThrow(/401/)
      await expect(vault.token(revoked)).rejects.toThrow(/401/)
      expect(
        await vault.token({ clientId: rotatedSecret.clientId, clientSecret: rotatedSecret.clientSecret }),
      ).toMatch(/\./)
    })

    it('serves the audit log to admins, with the events of the project and no values', async () => {
      await patch(vault, token, 'AUDITED', 'audit-canary-value')
      const response = await fetch(`${vault.url}/api/v1/audit?limit=1000`, {
        headers: { authorization: `Bearer ${vault.adminToken}` },
      })
      const text = await response.text()
      expect(response.status).toBe(200)
      expect(text).not.toContain('audit-canary-value')
      const actions = (JSON.parse(text) as { events: { action: string; target: string }[] }).events.map(
        (event) => `${event.action} ${event.target}`,
      )
      expect(actions).toContain('secret.create AUDITED')
      expect(actions).toContain('auth.login null')
    })

    it('delivers signed webhook events without values, retrying after a failure', async () => {
      const deliveries: { body: string; signature: string }[] = []
      let failuresLeft = 1
      /** Runs before a failing attempt is answered. */
      let beforeFailing: () => Promise<void> = async () => undefined
      const receiver = createServer((request: IncomingMessage, response) => {
        let body = ''
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
        request.on('end', async () => {
          if (failuresLeft-- > 0) return void (await beforeFailing(), response.writeHead(500).end())
          deliveries.push({ body, signature: String(request.headers['x-vault-signature']) })
          response.writeHead(204).end()
        })
      })
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
      try {
        const hook = await adminCreateWebhook(admin(), {
          project: vault.projectId,
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
          allowPrivate: true,
        })
        const written = await patch(vault, token, 'HOOKED', 'webhook-canary-value')
        expect(written.status).toBe(201)
        const deadline = Date.now() + 15_000
        while (deliveries.length === 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100))
        expect(deliveries).toHaveLength(1)
        const [delivery] = deliveries
        expect(delivery!.body).not.toContain('webhook-canary-value')
        expect(JSON.parse(delivery!.body)).toMatchObject({
          type: 'secret.created',
          environment: 'dev',
          secret: { name: 'HOOKED', version: 1 },
        })
        const [, stamp, mac] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(delivery!.signature)!
        expect(createHmac('sha256', hook.secret).update(`${stamp}.${delivery!.body}`).digest('hex')).toBe(mac)

        // PENDING's first attempt fails, and the webhook is disabled before that failure is answered:
        // its retry, due 100 ms later, must never be delivered
        failuresLeft = 1
        const disabled = new Promise<void>((resolve, reject) => {
          beforeFailing = () =>
            adminDisableWebhook(admin(), vault.projectId, hook.id).then(resolve, (error: unknown) => {
              reject(error as Error)
            })
        })
        expect((await patch(vault, token, 'PENDING', 'pending-value')).status).toBe(201)
        await Promise.race([
          disabled,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('PENDING was never attempted')), 10_000),
          ),
        ])
        await expect(adminDisableWebhook(admin(), vault.projectId, hook.id)).rejects.toThrow(
          /no active webhook/,
        )
        expect((await patch(vault, token, 'AFTER_DELETE', 'after-delete-value')).status).toBe(201)
        // the retry of PENDING fell due 100 ms after its failure: 500 ms are several more passes of the worker
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(deliveries).toHaveLength(1)
        const listed = await adminListWebhooks(admin(), vault.projectId)
        expect(listed.find((row) => row.id === hook.id)?.disabled_at).not.toBeNull()
      } finally {
        receiver.close()
      }
    })

    it('rotates ENCRYPTION_KEY by re-wrapping while the server keeps reading', async () => {
      await patch(vault, token, 'SURVIVES_ROTATION', 'rotation-value')
      const nextKey = randomBytes(32).toString('hex')
      await adminRotateEncryptionKey(admin(), nextKey)
      const read = await fetch(`${vault.url}/api/v1/secrets/SURVIVES_ROTATION?environment=dev`, {
        headers: { authorization: `Bearer ${token}` },
      })
      expect(((await read.json()) as { value: string }).value).toBe('rotation-value')
      const config = {
        jwtSecret: Buffer.from(vault.jwtSecret, 'hex'),
        dbUrl: vault.dbUrl,
        host: '127.0.0.1',
        port: 0,
        dev: true,
        behindProxy: false,
      }
      await expect(
        startVault({ ...config, encryptionKey: Buffer.from(vault.encryptionKey, 'hex') }),
      ).rejects.toThrow(/does not match/)
      const second = await startVault({ ...config, encryptionKey: Buffer.from(nextKey, 'hex') })
      try {
        const again = await fetch(`${second.url}/api/v1/secrets/SURVIVES_ROTATION?environment=dev`, {
          headers: { authorization: `Bearer ${token}` },
        })
        expect(((await again.json()) as { value: string }).value).toBe('rotation-value')
      } finally {
        await second.close()
        vault.encryptionKey = nextKey
      }
    })
  })
})

describe('HTTPS', () => {
  it('serves the API over TLS with --tls-cert and --tls-key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-tls-'))
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    )
    const cert = readFileSync(join(dir, 'cert.pem'))
    const vault = await startVault({
      encryptionKey: randomBytes(32),
      jwtSecret: randomBytes(32),
      dbUrl: `sqlite://${join(dir, 'vault.db')}`,
      host: '127.0.0.1',
      port: 0,
      dev: false,
      behindProxy: false,
      tls: { cert, key: readFileSync(join(dir, 'key.pem')) },
    })
    try {
      expect(vault.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      const headers: Record<string, unknown> = {}
      const body = await new Promise<string>((resolve, reject) => {
        httpsRequest(`${vault.url}/api/v1/health`, { ca: cert }, (response) => {
          Object.assign(headers, response.headers)
          let text = ''
          response.on('data', (chunk: Buffer) => (text += chunk.toString()))
          response.on('end', () => resolve(text))
        })
          .on('error', reject)
          .end()
      })
      expect(JSON.parse(body)).toMatchObject({ status: 'ok' })
      expect(headers['strict-transport-security']).toBe('max-age=31536000')
      expect(headers['x-content-type-options']).toBe('nosniff')
    } finally {
      await vault.close()
    }
  })
})

describe('vault server --dev (built CLI, real process)', () => {
  it('generates keys into a 0600 file, initialises a project, writes the stack credentials file and answers', async () => {
    const { spawn } = await import('node:child_process')
    const { runJs } = await import('../helpers/cli.js')
    const dir = mkdtempSync(join(tmpdir(), 'vault-dev-cli-'))
    const child = spawn(
      process.execPath,
      [
        runJs,
        'server',
        '--dev',
        '--data-dir',
        join(dir, 'data'),
        '--port',
        '0',
        '--init-project',
        'demo',
        '--write-env',
        join(dir, 'stack'),
      ],
      {
        env: { PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stderr = ''
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line:\n${stderr}`)), 30_000)
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString()
          const match = /vault server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)
          if (match) {
            clearTimeout(timer)
            resolve(match[1]!)
          }
        })
      })
      const keyFile = join(dir, 'data', 'dev-keys.env')
      expect(statSync(keyFile).mode & 0o777).toBe(0o600)
      const encryptionKey = /ENCRYPTION_KEY=([0-9a-f]{64})/.exec(readFileSync(keyFile, 'utf8'))![1]!
      expect(stderr).toContain(keyFile)
      expect(stderr).not.toContain(encryptionKey)
      const stackEnv = Object.fromEntries(
        readFileSync(join(dir, 'stack', '.vault', 'credentials'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split('=', 2)),
      )
      expect(stackEnv.VAULT_DOMAIN).toBe(url)
      expect(stderr).not.toContain(stackEnv.VAULT_CLIENT_SECRET)
      const token = await fetch(`${url}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: stackEnv.VAULT_CLIENT_ID!,
          client_secret: stackEnv.VAULT_CLIENT_SECRET!,
        }),
      })
      expect(token.status).toBe(200)
      expect((await fetch(url, { method: 'HEAD' })).status).toBe(200)
      const openapi = await fetch(`${url}/api/v1/openapi.json`)
      expect(openapi.status).toBe(200)
      const document = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> }
      expect(document.openapi).toMatch(/^3\./)
      expect(Object.keys(document.paths)).toContain('/api/v1/secrets/{name}')
    } finally {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    }
  })
})
