/**
 * Hostile clients against per-client rule sets (rule-sets.ts, client-rules.ts, rule-choice.ts): real
 * sockets from different loopback addresses, real mutual TLS, real unix and TCP frontends, in front of
 * the recording fake engine (and the private real engine for the reset attack: integration project). Each case says what the client tries and checks what it got: the status,
 * and that the engine never received a byte of a refused request. Rule sets are told apart by a path
 * only they allow (`GET /only-<set>`).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tls from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend, type Backend } from '../../../../src/proxy/backend.js'
import { resolveProxyConfig, resolveRuleSetConfig } from '../../../../src/proxy/config.js'
import { runProxy } from '../../../../src/proxy/run.js'
import { checkRequest } from '../../../../src/proxy/check.js'
import { settingsFromArgs, settingsFromEnv } from '../../../../src/proxy/settings.js'
import { freePort } from '../../../harness/ports.js'
import { engineOrNull, unavailableReason } from '../../../helpers/components.js'
import { createLogger } from '../../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../../src/proxy/server.js'
import type { TlsMaterial } from '../../../../src/proxy/config.js'
import { startRecordingEngine, type RecordingEngine } from '../../../helpers/recording-engine.js'
import {
  hasOpenssl,
  makeCaSignedCertificates,
  makeSelfSigned,
  makeSignedWithSubject,
} from '../../../helpers/certificates.js'

let engine: RecordingEngine
let backend: Backend
const running: ProxyServer[] = []

beforeAll(async () => {
  engine = await startRecordingEngine()
  backend = await createBackend({ kind: 'unix', path: engine.socketPath, mode: 0o660 })
})

afterAll(async () => {
  await Promise.all(running.map((proxy) => proxy.shutdown(100)))
  backend.close()
  await engine.close()
})

interface Served {
  port: number
  frontend: string
}

/** A proxy with `rules` (PROXY_RULES text) listening on `host`:0, its frontend written as `frontend`. */
async function serve(
  rules: string,
  options: { host?: string; frontend?: string; tls?: TlsMaterial } = {},
): Promise<Served> {
  const host = options.host ?? '127.0.0.1'
  const frontend = options.frontend ?? 'tcp://127.0.0.1:2375'
  const proxy = await createProxyServer({
    ruleSets: resolveRuleSetConfig({ rules }),
    frontend,
    backend,
    logger: createLogger(0, 'text'),
    tls: options.tls,
  })
  running.push(proxy)
  await new Promise<void>((resolve) => proxy.server.listen(0, host, resolve))
  return { port: (proxy.server.address() as net.AddressInfo).port, frontend }
}

/** A TCP connection to `port` on `host` from `localAddress`. */
function connectFrom(port: number, localAddress: string, host = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, localAddress }, () => resolve(socket))
    socket.on('error', reject)
  })
}

/** The status of `GET path` (and `extra` head lines) sent from `localAddress` on a fresh connection. */
async function statusFrom(
  port: number,
  localAddress: string,
  path: string,
  extra = '',
  host = '127.0.0.1',
): Promise<number> {
  const socket = await connectFrom(port, localAddress, host)
  const answer = new Promise<string>((resolve) => {
    let text = ''
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      if (text.includes('\r\n\r\n')) resolve(text)
    })
    socket.on('close', () => resolve(text))
  })
  socket.write(`GET ${path} HTTP/1.1\r\nHost: docker\r\n${extra}Connection: close\r\n\r\n`)
  const text = await answer
  socket.destroy()
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)
}

describe('a client that resets its connection', () => {
  it('is refused, not given the rule set of a client without an address (the engine never sees its POST)', async () => {
    // 127.0.0.2 gets [limited] (the built-ins only); [wide] is for every other client of this frontend.
    // The attack: the head's last line arrives together with a RST, so getpeername fails (ENOTCONN)
    // when the request is handled, and the peer address reads as undefined.
    const { port, frontend } = await serve(
      `[limited]\nclient source 127.0.0.2\n[wide]\nclient frontend tcp://127.0.0.1:2375\nPOST /containers/create\n`,
    )
    expect(frontend).toBe('tcp://127.0.0.1:2375')
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(await statusFrom(port, '127.0.0.2', '/_ping')).toBe(200)
      const socket = await connectFrom(port, '127.0.0.2')
      socket.on('error', () => {})
      socket.write('POST /containers/create HTTP/1.1\r\nHost: docker\r\n')
      await new Promise((resolve) => setTimeout(resolve, 50))
      socket.write('Content-Length: 0\r\n\r\n', () => socket.resetAndDestroy())
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(engine.raw()).not.toContain('POST')
    expect(await statusFrom(port, '127.0.0.2', '/containers/create')).toBe(403)
    expect(engine.seen.filter((line) => !line.startsWith('GET /_ping'))).toEqual([])
  })
})

/** `[name]` sections, each chosen by its `client` line and allowing only `GET /only-<name>`. */
function sections(clients: Record<string, string>): string {
  return Object.entries(clients)
    .map(([name, client]) => `[${name}]\nclient ${client}\nGET /only-${name}\n`)
    .join('')
}

/** The status of `GET path` over TLS with the certificate `<base>.pem` and `<base>.key` (0: no answer). */
function tlsStatus(port: number, base: string | undefined, path: string): Promise<number> {
  return new Promise((resolve) => {
    const credentials = base ? { cert: readFileSync(`${base}.pem`), key: readFileSync(`${base}.key`) } : {}
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...credentials }, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n\r\n`),
    )
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('error', () => socket.destroy())
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)))
  })
}

const realEngine = engineOrNull()

describe.skipIf(!realEngine)(
  `the same reset, against the real engine (${unavailableReason('engine')})`,
  () => {
    it('creates no container for a client whose rule set allows only the built-ins', async () => {
      const info = realEngine!
      const realBackend = await createBackend({ kind: 'unix', path: info.socket, mode: 0o660 })
      const proxy = await createProxyServer({
        ruleSets: resolveRuleSetConfig({
          rules: `[limited]\nclient source 127.0.0.2\n[wide]\nclient frontend tcp://127.0.0.1:2375\nPOST /containers/create\n`,
        }),
        frontend: 'tcp://127.0.0.1:2375',
        backend: realBackend,
        logger: createLogger(0, 'text'),
      })
      await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
      const port = (proxy.server.address() as net.AddressInfo).port
      const name = `client-selection-reset-${process.pid}`
      const body = JSON.stringify({ Image: info.busyboxImage, Cmd: ['true'] })
      try {
        for (let attempt = 0; attempt < 3; attempt++) {
          expect(await statusFrom(port, '127.0.0.2', '/_ping')).toBe(200)
          const socket = await connectFrom(port, '127.0.0.2')
          socket.on('error', () => {})
          socket.write(`POST /containers/create?name=${name}-${attempt} HTTP/1.1\r\nHost: docker\r\n`)
          await new Promise((resolve) => setTimeout(resolve, 50))
          socket.write(
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
            () => socket.resetAndDestroy(),
          )
          await new Promise((resolve) => setTimeout(resolve, 300))
        }
        await new Promise((resolve) => setTimeout(resolve, 500))
        const listed = execFileSync('docker', ['-H', info.dockerHost, 'ps', '-a', '--format', '{{.Names}}'], {
          encoding: 'utf8',
        })
        expect(listed).not.toContain(name)
      } finally {
        await proxy.shutdown(100)
        realBackend.close()
        spawnSync('docker', ['-H', info.dockerHost, 'rm', '-f', `${name}-0`, `${name}-1`, `${name}-2`])
      }
    })
  },
)

describe.runIf(hasOpenssl)('client certificates (mutual TLS)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-clients-'))
  const otherCa = mkdtempSync(join(tmpdir(), 'proxy-clients-other-ca-'))
  const ruleSets = ['dashboard', 'acme', 'fallback', 'lowercase']
  let port: number

  beforeAll(async () => {
    makeCaSignedCertificates(dir, ['server'])
    const subjects: Record<string, string> = {
      dashboard: '/CN=dashboard/O=acme',
      'only-acme': '/O=acme',
      'two-cns': '/CN=evil/CN=dashboard/O=acme',
      'two-os': '/CN=dashboard/O=evil/O=acme',
      'comma-cn': '/CN=dashboard,O=acme',
      'newline-cn': '/CN=dashboard\nO=acme',
      'one-rdn': '/CN=dashboard+O=acme',
      'empty-subject': '/',
      'lowercase-dashboard': '/CN=dash/O=other',
      'two-cns-dash': '/CN=evil/CN=dash/O=other',
    }
    for (const [name, subject] of Object.entries(subjects)) makeSignedWithSubject(dir, name, subject)
    makeSelfSigned('/CN=dashboard/O=acme', join(dir, 'self.key'), join(dir, 'self.pem'))
    makeCaSignedCertificates(otherCa, [])
    makeSignedWithSubject(otherCa, 'untrusted', '/CN=dashboard/O=acme')
    ;({ port } = await serve(
      sections({
        dashboard: 'cert CN=dashboard,O=acme',
        acme: 'cert O=acme',
        lowercase: 'cert cn=dash',
        fallback: 'frontend tcp://127.0.0.1:2376',
      }),
      {
        frontend: 'tcp://127.0.0.1:2376',
        tls: {
          ca: readFileSync(join(dir, 'ca.pem')),
          cert: readFileSync(join(dir, 'server.pem')),
          key: readFileSync(join(dir, 'server.key')),
        },
      },
    ))
  })

  it.each([
    ['the subject the selector names', 'dashboard', 'dashboard'],
    ['only O=acme: the next cert selector', 'only-acme', 'acme'],
    ['CN=dashboard and O=acme in one multi-valued RDN', 'one-rdn', 'dashboard'],
    ['two CNs, evil and dashboard: CN=dashboard is not its CN (O=acme is its O)', 'two-cns', 'acme'],
    [
      'two Os, evil and acme: O=acme is one of them (any value of an attribute but CN)',
      'two-os',
      'dashboard',
    ],
    [
      'a CN "dashboard,O=acme" (a comma inside the value) is not CN=dashboard and O=acme',
      'comma-cn',
      'fallback',
    ],
    ['a CN "dashboard\\nO=acme" (a newline inside the value) adds no O', 'newline-cn', 'fallback'],
    ['an empty subject matches no cert selector and falls to the frontend', 'empty-subject', 'fallback'],
    [
      'a "cn=" selector (lower case) is CN: RFC 4514 compares names without case',
      'lowercase-dashboard',
      'lowercase',
    ],
    ['two CNs, evil and dash: cn=dash is not its CN either', 'two-cns-dash', 'fallback'],
  ])('%s', async (_attack, cert, expected) => {
    engine.reset()
    // Answers close the connection: the state kept per connection cannot carry one client's set over.
    for (const set of ruleSets)
      expect([set, await tlsStatus(port, join(dir, cert), `/only-${set}`)]).toEqual([
        set,
        set === expected ? 200 : 403,
      ])
    expect(engine.seen).toEqual([`GET /only-${expected}`])
  })

  it.each([
    ['no certificate', undefined],
    ['a self-signed certificate with the subject of a rule set', 'self'],
    ['a certificate with the subject of a rule set from a CA the proxy does not trust', 'untrusted'],
  ])('%s: refused in the handshake, before any rule set', async (_attack, cert) => {
    engine.reset()
    const base = cert === undefined ? undefined : cert === 'self' ? join(dir, 'self') : join(otherCa, cert)
    expect(await tlsStatus(port, base, '/_ping')).toBe(0)
    expect(engine.raw()).toBe('')
  })
})

describe('source addresses', () => {
  it.each([
    ['an IPv4 rule, the peer IPv4-mapped on a dual-stack listener', '127.0.0.2', '::', '127.0.0.2', true],
    ['an IPv4 rule, another IPv4 peer', '127.0.0.2', '::', '127.0.0.3', false],
    ['an IPv4-mapped rule, a peer on an IPv4 listener', '::ffff:127.0.0.2', '127.0.0.1', '127.0.0.2', true],
    ['an IPv4-mapped rule in hex', '::ffff:7f00:2', '::', '127.0.0.2', true],
    ['::ffff:0:0/96 (every IPv4 peer), an IPv4 peer', '::ffff:0:0/96', '::', '127.0.0.3', true],
    ['::ffff:0:0/96, an IPv6 peer', '::ffff:0:0/96', '::', '::1', false],
    ['an IPv4 CIDR, an IPv6 peer', '127.0.0.0/8', '::', '::1', false],
    ['0.0.0.0/0, an IPv6 peer', '0.0.0.0/0', '::', '::1', false],
    ['::/0 holds the IPv4-mapped addresses: an IPv4 peer', '::/0', '::', '127.0.0.3', true],
    ['::1, an IPv4 loopback peer', '::1', '::', '127.0.0.1', false],
    ['a CIDR with host bits set reads as its network', '127.0.0.1/8', '::', '127.0.0.9', true],
    ['a CIDR with host bits set, an IPv6 peer', '127.0.0.1/8', '::', '::1', false],
  ])('%s (client source %s, listener %s, peer %s)', async (_case, rule, host, peer, chosen) => {
    engine.reset()
    const { port } = await serve(sections({ a: `source ${rule}` }), { host })
    const target = peer.includes(':') ? '::1' : '127.0.0.1'
    expect(await statusFrom(port, peer, '/only-a', '', target)).toBe(chosen ? 200 : 403)
    expect(await statusFrom(port, peer, '/_ping', '', target)).toBe(chosen ? 200 : 403)
    expect(engine.seen).toEqual(chosen ? ['GET /only-a', 'GET /_ping'] : [])
  })

  it.each([
    ['X-Forwarded-For', 'X-Forwarded-For: 127.0.0.2\r\n'],
    ['X-Real-IP', 'X-Real-IP: 127.0.0.2\r\n'],
    ['Forwarded', 'Forwarded: for=127.0.0.2\r\n'],
    ['two X-Forwarded-For', 'X-Forwarded-For: 127.0.0.2\r\nX-Forwarded-For: 127.0.0.2\r\n'],
  ])('a %s header naming an allowed address is ignored', async (_header, extra) => {
    engine.reset()
    const { port } = await serve(sections({ a: 'source 127.0.0.2' }))
    expect(await statusFrom(port, '127.0.0.3', '/only-a', extra)).toBe(403)
    expect(engine.raw()).toBe('')
  })

  it.each([
    ['v1', 'PROXY TCP4 127.0.0.2 127.0.0.1 40000 2375\r\n'],
    ['v2', Buffer.from('0d0a0d0a000d0a515549540a2111000c7f0000027f0000019c400947', 'hex').toString('latin1')],
  ])(
    'a PROXY protocol %s header naming an allowed address is never read: 403 at accept',
    async (_v, header) => {
      engine.reset()
      const { port } = await serve(sections({ a: 'source 127.0.0.2' }))
      const socket = await connectFrom(port, '127.0.0.3')
      const answer = new Promise<string>((resolve) => {
        let text = ''
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
        socket.on('close', () => resolve(text))
      })
      socket.write(Buffer.from(`${header}GET /only-a HTTP/1.1\r\nHost: docker\r\n\r\n`, 'latin1'))
      // 127.0.0.3 has no rule set: it is refused at accept, before a byte of it (the header) is read.
      expect(await answer).toMatch(
        /^HTTP\/1\.1 403 [\s\S]*no rule set for this client \(source 127\.0\.0\.3,/,
      )
      expect(engine.raw()).toBe('')
    },
  )

  it.each([
    '010.0.0.1',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
    'localhost',
    '[::1]',
    '127.0.0.1:2375',
    '127.0.0.1/33',
    '::1/129',
    '127.0.0.0/8/8',
    '127.0.0.0/-1',
    '127.0.0.0/0x8',
    '127.0.0.0/',
    '127.0.0.0 /8',
    ' ',
  ])('refuses "client source %s" at start-up, naming the line', (value) => {
    expect(() => resolveRuleSetConfig({ rules: `[a]\nclient source ${value}\n` })).toThrow(/line 2/)
  })
})

/** Whether a network namespace with a veth pair can be made here (root, iproute2). */
const canMakeNetns =
  process.getuid?.() === 0 && spawnSync('ip', ['netns', 'list'], { stdio: 'ignore' }).status === 0

describe.runIf(canMakeNetns)(
  'IPv6 zone ids (a link-local peer in a network namespace, over a veth pair)',
  () => {
    const namespace = `vault-cs-${process.pid}`
    const hostSide = `vcs${process.pid % 100000}h`
    const peerSide = `vcs${process.pid % 100000}p`
    const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' })

    beforeAll(() => {
      ip('netns', 'add', namespace)
      ip('link', 'add', hostSide, 'type', 'veth', 'peer', 'name', peerSide, 'netns', namespace)
      ip('addr', 'add', 'fe80::5:1/64', 'dev', hostSide, 'nodad')
      ip('link', 'set', hostSide, 'up')
      ip('-n', namespace, 'addr', 'add', 'fe80::5:2/64', 'dev', peerSide, 'nodad')
      ip('-n', namespace, 'link', 'set', peerSide, 'up')
    })

    afterAll(() => {
      spawnSync('ip', ['link', 'del', hostSide])
      spawnSync('ip', ['netns', 'del', namespace])
    })

    /** The status of GET path sent by fe80::5:2 from inside the namespace (the proxy sees it on hostSide). */
    function statusFromNamespace(port: number, path: string): Promise<number> {
      const client = `const s = require('net').connect({ host: 'fe80::5:1%${peerSide}', port: ${port} }, () =>
      s.write('GET ${path} HTTP/1.1\\r\\nHost: docker\\r\\nConnection: close\\r\\n\\r\\n'))
      let t = ''; s.on('data', (d) => (t += d)); s.on('close', () => process.stdout.write(t.slice(9, 12)))`
      const child = spawn('ip', ['netns', 'exec', namespace, process.execPath, '-e', client])
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      return new Promise((resolve) => child.on('close', () => resolve(Number(output))))
    }

    it.each([
      ["the peer's own link", () => `fe80::5:2%${hostSide}`, true],
      ['another link (lo): the same address there is another host', () => 'fe80::5:2%lo', false],
      ['another link, in a CIDR', () => 'fe80::%lo/64', false],
      ['no zone: any link', () => 'fe80::5:2', true],
    ])('client source with a zone id on %s', async (_case, rule, chosen) => {
      engine.reset()
      const { port } = await serve(sections({ a: `source ${rule()}` }), { host: '::' })
      expect(await statusFromNamespace(port, '/only-a')).toBe(chosen ? 200 : 403)
      expect(engine.seen).toEqual(chosen ? ['GET /only-a'] : [])
    })
  },
)

/** The status of a raw request (`head` is everything up to the blank line) over `connect`'s socket. */
function rawStatus(connect: () => net.Socket, head: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect()
    let text = ''
    socket.on('connect', () => socket.write(`${head}\r\n\r\n`))
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      if (text.includes('\r\n\r\n')) socket.destroy()
    })
    socket.on('error', () => socket.destroy())
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)))
  })
}

describe('frontends: two unix sockets and two TCP ports, one rule set each (runProxy, as served)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-frontends-'))
  const names = ['first', 'second', 'third', 'fourth'] as const
  let stop: () => Promise<void>
  const connectTo: Record<string, () => net.Socket> = {}

  beforeAll(async () => {
    const [tcpPort, ipv6Port] = [await freePort(), await freePort()]
    const frontends = {
      first: `unix://${dir}/first.sock?mode=0600`,
      second: `unix://${dir}/second.sock`,
      third: `tcp://:${tcpPort}`,
      fourth: `tcp://[::1]:${ipv6Port}`,
    }
    const config = resolveProxyConfig({
      backendAddr: `unix://${engine.socketPath}`,
      frontendAddrs: Object.values(frontends),
      rules: sections(Object.fromEntries(names.map((name) => [name, `frontend ${frontends[name]}`]))),
    })
    ;({ stop } = await runProxy(config, createLogger(0, 'text')))
    symlinkSync(join(dir, 'first.sock'), join(dir, 'link-to-first.sock'))
    connectTo.first = () => net.connect(join(dir, 'first.sock'))
    connectTo.second = () => net.connect(join(dir, 'second.sock'))
    connectTo.third = () => net.connect(tcpPort, '127.0.0.1')
    connectTo.fourth = () => net.connect(ipv6Port, '::1')
    connectTo['first, through a symlink'] = () => net.connect(join(dir, 'link-to-first.sock'))
  })

  afterAll(() => stop())

  it.each(['first', 'second', 'third', 'fourth', 'first, through a symlink'])(
    'a client of the %s frontend gets its rule set and no other',
    async (frontend) => {
      engine.reset()
      const own = frontend.split(',')[0]!
      for (const name of names) {
        const status = await rawStatus(connectTo[frontend]!, `GET /only-${name} HTTP/1.1\r\nHost: docker`)
        expect([name, status]).toEqual([name, name === own ? 200 : 403])
      }
      expect(engine.seen).toEqual([`GET /only-${own}`])
    },
  )

  it.each([
    [
      '0.0.0.0 for the all-interfaces frontend',
      (port: number) => [`tcp://:${port}`, `tcp://0.0.0.0:${port}`],
    ],
    ['a host name for an address', (port: number) => [`tcp://127.0.0.1:${port}`, `tcp://localhost:${port}`]],
    ['a trailing slash', () => [`unix://${dir}/a.sock`, `unix://${dir}/a.sock/`]],
    ['a symlink to the socket', () => [`unix://${dir}/a.sock`, `unix://${dir}/link.sock`]],
    ['a dot segment', () => [`unix://${dir}/a.sock`, `unix://${dir}/./a.sock`]],
  ])('a client frontend written as %s is refused at start-up', (_case, spell) => {
    const [frontend, written] = spell(2375)
    expect(() =>
      resolveProxyConfig({ frontendAddrs: [frontend!], rules: `[a]\nclient frontend ${written}\n` }),
    ).toThrow(/is not a PROXY_FRONTEND_ADDR/)
  })
})

describe('two unix frontends on one socket file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-same-socket-'))
  mkdirSync(join(dir, 'real'))
  symlinkSync(join(dir, 'real'), join(dir, 'link'))

  it.each([
    ['a doubled slash', 'real//a.sock'],
    ['a dot segment', 'real/./a.sock'],
    ['a symlinked directory', 'link/a.sock'],
    ['only ?mode= differing', 'real/a.sock?mode=0600'],
  ])(
    'are refused at start-up when the second is written with %s (its clients got the second set)',
    async (_case, second) => {
      engine.reset()
      const narrow = `unix://${dir}/real/a.sock`
      const wide = `unix://${dir}/${second}`
      const settings = {
        backendAddr: `unix://${engine.socketPath}`,
        frontendAddrs: [narrow, wide],
        rules: `[narrow]\nclient frontend ${narrow}\nGET /only-narrow\n[wide]\nclient frontend ${wide}\nPOST /containers/create\n`,
      }
      let served: { stop: () => Promise<void> } | undefined
      try {
        served = await runProxy(resolveProxyConfig(settings), createLogger(0, 'text'))
        const status = await rawStatus(
          () => net.connect(join(dir, 'real', 'a.sock')),
          'POST /containers/create HTTP/1.1\r\nHost: docker\r\nContent-Length: 0',
        )
        expect(status).toBe(403)
      } catch (error) {
        expect(String(error)).toMatch(/PROXY_FRONTEND_ADDR ".*" is the socket of ".*" \(.*\) again/)
      } finally {
        await served?.stop()
      }
      expect(served).toBeUndefined()
      expect(engine.raw()).not.toContain('POST')
    },
  )
})

describe('a client that matches no rule set', () => {
  it.each([
    ['GET /_ping (a built-in rule)', 'GET /_ping HTTP/1.1'],
    ['HEAD /_ping', 'HEAD /_ping HTTP/1.1'],
    ['GET /version (a built-in rule)', 'GET /v1.47/version HTTP/1.1'],
    [
      'an exec start upgrade',
      'POST /v1.47/exec/abc/start HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 0',
    ],
    [
      'an attach upgrade',
      'POST /containers/abc/attach?stream=1 HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: tcp',
    ],
    [
      'a websocket upgrade',
      'GET /containers/abc/attach/ws HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket',
    ],
    ['HTTP/1.0', 'GET /_ping HTTP/1.0'],
  ])('is refused %s, and the engine sees nothing', async (_case, requestLine) => {
    engine.reset()
    const { port } = await serve(
      `[a]\nclient source 127.0.0.2\nPOST /v1.47/exec/abc/start\nPOST /containers/abc/attach\nGET /containers/abc/attach/ws\n`,
    )
    const status = await rawStatus(
      () => net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.3' }),
      `${requestLine}\r\nHost: docker`,
    )
    expect(status).toBe(403)
    expect(engine.raw()).toBe('')
  })

  it('stays refused on a keep-alive connection whatever its later requests claim', async () => {
    engine.reset()
    const { port } = await serve(sections({ a: 'source 127.0.0.2' }))
    const socket = await connectFrom(port, '127.0.0.3')
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    const request = (extra: string) => `GET /only-a HTTP/1.1\r\nHost: docker\r\n${extra}\r\n`
    socket.write(request('X-Forwarded-For: 127.0.0.2\r\n') + request('Forwarded: for=127.0.0.2\r\n'))
    await new Promise((resolve) => socket.on('close', resolve))
    expect(text.match(/^HTTP\/1\.1 \d{3}/gm)).toEqual(['HTTP/1.1 403'])
    expect(engine.raw()).toBe('')
  })
})

describe('configuration as users write it', () => {
  it.each([';', ' ; ;', '\n\n', '   '])(
    'refuses PROXY_CLIENTS %j, which holds no entry (every client got the default rules)',
    (text) => {
      expect(() => resolveProxyConfig(settingsFromEnv({ PROXY_CLIENTS: text }))).toThrow(
        /PROXY_CLIENTS holds no entry/,
      )
    },
  )

  it.each([
    ['a comma between entries', 'source 127.0.0.2 monitoring, source 127.0.0.3 read-only', /entry 1/],
    ['an entry without a rule set', 'source 127.0.0.2', /entry 1/],
    [
      'a rule set that does not exist',
      'source 127.0.0.2 monitoring; source 127.0.0.3 nosuch',
      /line 2: "nosuch" is neither/,
    ],
    ['a rule set named with capitals', 'source 127.0.0.2 Monitoring', /"Monitoring" is neither/],
    ['KIND=VALUE', 'source=127.0.0.2 monitoring', /entry 1/],
    ['a kind in capitals', 'SOURCE 127.0.0.2 monitoring', /entry 1/],
  ])('refuses PROXY_CLIENTS with %s', (_case, text, message) => {
    expect(() => resolveProxyConfig(settingsFromEnv({ PROXY_CLIENTS: text }))).toThrow(message)
  })

  it('tries the selectors in the order written, PROXY_CLIENTS last, as vault proxy check reports', async () => {
    engine.reset()
    const settings = {
      rules: sections({ narrow: 'source 127.0.0.2', wide: 'source 127.0.0.0/8' }),
      clients: 'source 127.0.0.2 monitoring',
    }
    const { port } = await serve(settings.rules, {})
    expect(checkRequest(settings, 'GET', '/only-narrow', { client: ['source=127.0.0.2'] }).ruleSet).toBe(
      'narrow',
    )
    expect(checkRequest(settings, 'GET', '/only-wide', { client: ['source=127.0.0.3'] }).ruleSet).toBe('wide')
    expect(await statusFrom(port, '127.0.0.2', '/only-narrow')).toBe(200)
    expect(await statusFrom(port, '127.0.0.2', '/only-wide')).toBe(403)
    expect(await statusFrom(port, '127.0.0.3', '/only-wide')).toBe(200)
    expect(resolveRuleSetConfig(settings).selectors.map((selector) => selector.ruleSet)).toEqual([
      'narrow',
      'wide',
      'monitoring',
    ])
    expect(engine.seen).toEqual(['GET /only-narrow', 'GET /only-wide'])
  })

  it('lets a flag replace its PROXY_ variable, never add to it', () => {
    const settings = settingsFromArgs(['--clients', 'source 127.0.0.9 monitoring'], {
      PROXY_CLIENTS: 'source 127.0.0.0/8 management',
    })
    expect(resolveRuleSetConfig(settings).selectors.map((selector) => selector.matcher.value)).toEqual([
      '127.0.0.9',
    ])
  })

  it('refuses a section written twice (its second half added rules to the first: [a] allowed POST /y)', () => {
    const rules = '[a]\nclient source 127.0.0.2\nGET /x\n[b]\nclient source 127.0.0.3\n[a]\nPOST /y\n'
    expect(() => resolveRuleSetConfig({ rules })).toThrow(
      /PROXY_RULES line 6: \[a\] is already written at PROXY_RULES line 1/,
    )
  })

  it('refuses a section written in PROXY_RULES and again in the rules file', () => {
    const rulesFile = join(mkdtempSync(join(tmpdir(), 'proxy-sections-')), 'clients.rules')
    writeFileSync(rulesFile, '[a]\nPOST /y\n')
    expect(() =>
      resolveRuleSetConfig({ rules: '[a]\nclient source 127.0.0.2\nGET /x\n', rulesFile }),
    ).toThrow(/line 1: \[a\] is already written at PROXY_RULES line 1/)
  })
})
