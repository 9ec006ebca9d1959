/**
 * Issue 14 item 7: webhooks must not be a way into the vault host's network. Every receiver below is
 * refused (no row written), a delivery to a refused address is never sent, redirects are not followed,
 * the connection goes to the address that was checked, and listings hide URL userinfo (the CLI's
 * listing: test/unit/commands/webhook/list.test.ts). No test sends traffic anywhere but loopback:
 * refused addresses are refused before any connection.
 */
import { createServer, type Server } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminCreateWebhook, adminListWebhooks } from '../../../src/server/admin.js'
import { deliver } from '../../../src/server/webhooks/webhook-delivery.js'
import { createWebhook } from '../../../src/server/webhooks/webhooks.js'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'
import { send } from './client.js'

interface Receiver {
  url: string
  hits: { method: string; path: string }[]
  server: Server
}

async function receiver(answer: (path: string) => { status: number; headers?: Record<string, string> }) {
  const hits: Receiver['hits'] = []
  const server = createServer((request, response) => {
    hits.push({ method: request.method ?? '', path: request.url ?? '' })
    request.resume()
    const { status, headers } = answer(request.url ?? '')
    response.writeHead(status, headers).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server }
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
}

async function outbox(vault: TestVault) {
  return vault.running.context.driver.transaction((tx) =>
    tx.all<{ attempts: number; delivered_at: string | null; last_error: string | null }>(
      `SELECT attempts, delivered_at, last_error FROM webhook_outbox ORDER BY created_at`,
    ),
  )
}

async function writeSecret(vault: TestVault, name: string) {
  const token = await vault.token(vault.deploymentCredentials)
  const answer = await send(vault, {
    method: 'PUT',
    path: `/api/v1/secrets/${name}?environment=dev`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ value: 'hook-canary' }),
  })
  expect(answer.status).toBe(201)
}

describe('webhook receivers refused at registration', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startVaultServer()
  })
  afterAll(() => vault?.stop())
  const admin = () => ({ dbUrl: vault.dbUrl, encryptionKey: vault.encryptionKey })

  it.each([
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['the engine port on 0.0.0.0', 'http://0.0.0.0:2375/containers/create'],
    ['IPv4-mapped metadata', 'http://[::ffff:a9fe:a9fe]/'],
    ['decimal-encoded metadata', 'http://2852039166/'],
    ['loopback', 'http://127.0.0.1:8200/api/v1/secrets'],
    ['localhost (resolved, loopback)', 'http://localhost:8200/'],
    ['IPv6 loopback', 'http://[::1]:2375/'],
    ['a private address', 'https://10.0.0.1/hook'],
    ['a private 172.16/12 address', 'https://172.17.0.1/hook'],
    ['a home router', 'https://192.168.1.1/hook'],
    ['unique-local (AWS IPv6 metadata)', 'http://[fd00:ec2::254]/'],
    ['IPv6 link-local', 'http://[fe80::1]/'],
    ['CGNAT (Alibaba metadata)', 'http://100.100.100.200/latest/meta-data/'],
  ])('refuses %s and writes no webhook row', async (_attack, url) => {
    const before = (await adminListWebhooks(admin(), vault.projectId)).length
    await expect(adminCreateWebhook(admin(), { project: vault.projectId, url })).rejects.toThrow(
      /refusing webhook receiver/,
    )
    expect(await adminListWebhooks(admin(), vault.projectId)).toHaveLength(before)
  })
})

describe('webhook deliveries', () => {
  let vault: TestVault
  let open: TestVault
  const receivers: Receiver[] = []
  beforeAll(async () => {
    vault = await startVaultServer()
    open = await startVaultServer({ allowPrivateWebhooks: true })
  })
  afterAll(async () => {
    for (const each of receivers) each.server.close()
    await vault?.stop()
    await open?.stop()
  })

  it('never sends a delivery to a private receiver when the server does not allow them', async () => {
    const target = await receiver(() => ({ status: 204 }))
    receivers.push(target)
    await adminCreateWebhook(
      { dbUrl: vault.dbUrl, encryptionKey: vault.encryptionKey },
      { project: vault.projectId, url: `${target.url}/hook`, allowPrivate: true },
    )
    await writeSecret(vault, 'REFUSED_AT_DELIVERY')
    await until(async () => (await outbox(vault)).some((row) => Number(row.attempts) > 0))
    const [row] = await outbox(vault)
    expect(row!.delivered_at).toBeNull()
    expect(row!.last_error).toMatch(/^refused: .*127\.0\.0\.1 is loopback/)
    expect(target.hits).toEqual([])
  })

  it('does not follow a redirect: the signed POST never reaches the redirect target', async () => {
    const elsewhere = await receiver(() => ({ status: 204 }))
    const redirecting = await receiver(() => ({
      status: 307,
      headers: { location: `${elsewhere.url}/stolen` },
    }))
    receivers.push(elsewhere, redirecting)
    await adminCreateWebhook(
      { dbUrl: open.dbUrl, encryptionKey: open.encryptionKey },
      { project: open.projectId, url: `${redirecting.url}/hook`, allowPrivate: true },
    )
    await writeSecret(open, 'REDIRECTED')
    await until(async () => redirecting.hits.length > 0)
    await until(async () => (await outbox(open)).some((row) => row.last_error !== null))
    expect(redirecting.hits).toHaveLength(1)
    expect(elsewhere.hits).toEqual([])
    expect((await outbox(open))[0]!.last_error).toBe('HTTP 307 (redirects are not followed)')
  })

  it('connects to the address it checked, not to a second DNS answer (rebinding)', async () => {
    const target = await receiver(() => ({ status: 204 }))
    receivers.push(target)
    const port = new URL(target.url).port
    let lookups = 0
    const answers = ['127.0.0.1', '127.0.9.9']
    const resolve = async () => [{ address: answers[Math.min(lookups++, 1)]!, family: 4 }]
    const failure = await deliver({
      url: `http://rebind.invalid:${port}/hook`,
      body: '{}',
      headers: { 'content-type': 'application/json' },
      allowPrivate: true,
      resolve,
    })
    expect(failure).toBeNull()
    expect(lookups).toBe(1)
    expect(target.hits).toHaveLength(1)
  })

  it.each([
    ['its headers', 'HTTP/1.1 200 OK\r\n', 'x-slow: '],
    ['its body', 'HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n', ''],
  ])(
    'gives up on a receiver that trickles %s one byte at a time (the worker is not held)',
    async (_part, head, prefix) => {
      const open = new Set<Socket>()
      const trickler = createTcpServer((socket) => {
        open.add(socket)
        socket.on('error', () => undefined)
        socket.once('data', () => {
          socket.write(head + prefix)
          const drip = setInterval(() => socket.write('x'), 500)
          socket.on('close', () => {
            clearInterval(drip)
            open.delete(socket)
          })
        })
      })
      await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve))
      try {
        const started = Date.now()
        const outcome = await Promise.race([
          deliver({
            url: `http://127.0.0.1:${(trickler.address() as AddressInfo).port}/hook`,
            body: '{}',
            headers: { 'content-type': 'application/json' },
            allowPrivate: true,
            timeoutMs: 1_000,
          }).then(() => 'ended'),
          new Promise((resolve) => setTimeout(() => resolve('still held'), 6_000)),
        ])
        // the receiver drips a byte every 500 ms, so only the deadline (1 s here, 5 s by default) ends it
        expect(outcome).toBe('ended')
        expect(Date.now() - started).toBeLessThan(4_000)
        await until(async () => open.size === 0, 2_000)
        expect(open.size).toBe(0)
      } finally {
        for (const socket of open) socket.destroy()
        trickler.close()
      }
    },
  )

  it('registers a webhook whose name server never answers within its lookup deadline, with a warning', async () => {
    const started = Date.now()
    const created = await vault.running.context.driver.transaction((tx) =>
      createWebhook(tx, vault.running.context.keyring, {
        projectId: vault.projectId,
        url: 'https://never-answers.invalid/hook',
        resolve: () => new Promise(() => undefined),
        lookupTimeoutMs: 500,
      }),
    )
    expect(Date.now() - started).toBeLessThan(4_000)
    expect(created.warnings.join('\n')).toMatch(/does not resolve now/)
    // the transaction ended: other writes go on
    await writeSecret(vault, 'AFTER_SLOW_REGISTRATION')
  })

  it('gives up on a receiver whose name never resolves (the worker is not held)', async () => {
    const started = Date.now()
    const outcome = await Promise.race([
      deliver({
        url: 'https://never-answers.invalid/hook',
        body: '{}',
        headers: { 'content-type': 'application/json' },
        allowPrivate: false,
        resolve: () => new Promise(() => undefined),
        timeoutMs: 500,
      }),
      new Promise((resolve) => setTimeout(() => resolve('still held'), 6_000)),
    ])
    expect(outcome).toMatch(/^unresolvable: /)
    expect(Date.now() - started).toBeLessThan(4_000)
  })
})
