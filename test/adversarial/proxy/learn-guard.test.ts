/**
 * Attacks on learn mode through the proxy's request path (fake engine on a unix socket): what must stay
 * refused while learning never reaches the engine (a guarded body on an upgrade, a body over 1 MiB, a
 * body needing more allowances than learn mode records), and a bind of the host's root or of the engine
 * socket, forwarded while learning as every guard refusal is, is never written as an allowance: the
 * allowances the file names, given to an enforcing guard, still refuse it. Huge or hostile bind sources
 * neither bloat the record nor reach the file as a setting.
 */
import type net from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import { resolveRuleSetConfig } from '../../../src/proxy/config.js'
import { resolveGuardSettings } from '../../../src/proxy/guard-settings.js'
import { judgeBody } from '../../../src/proxy/guard.js'
import { learnedRulesText } from '../../../src/proxy/learn/learned-file.js'
import { createLearner, type Learner } from '../../../src/proxy/learn/learner.js'
import { createLogger } from '../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../src/proxy/server.js'
import { rawExchange } from '../../helpers/raw-client.js'
import { startRecordingEngine, type RecordingEngine } from '../../helpers/recording-engine.js'

let engine: RecordingEngine
let proxy: ProxyServer
let learner: Learner
let port: number

beforeAll(async () => {
  engine = await startRecordingEngine()
  const ruleSets = resolveRuleSetConfig({ rules: 'GET %API_PREFIX_CONTAINERS%/json' })
  const guard = resolveGuardSettings({}, engine.socketPath)
  learner = createLearner(ruleSets, { logger: createLogger(3, 'text', () => undefined), guard })
  proxy = await createProxyServer({
    ruleSets,
    guard,
    backend: await createBackend({ kind: 'unix', path: engine.socketPath, mode: 0o660 }),
    logger: createLogger(3, 'text', () => undefined),
    learner,
  })
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  port = (proxy.server.address() as net.AddressInfo).port
})

afterAll(async () => {
  await proxy.shutdown(100)
  await engine.close()
})

beforeEach(() => engine.reset())

const create = (body: string, extra = '') =>
  `POST /v1.41/containers/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
const binds = (...sources: string[]) =>
  JSON.stringify({ HostConfig: { Binds: sources.map((s) => `${s}:/h`) } })

/** The allowances the learned file names (its PROXY_* line), as an enforcing guard reads them. */
function learnedGuard() {
  const text = learnedRulesText(learner.traffic(), new Date(0))
  const env = /^# {3}environment: (.*)$/m.exec(text)?.[1] ?? ''
  const value = (name: string) => new RegExp(`${name}=(\\S+)`).exec(env)?.[1]
  return {
    text,
    guard: resolveGuardSettings(
      {
        allowCap: value('PROXY_ALLOW_CAP')?.split(','),
        allowBindFrom: value('PROXY_ALLOW_BIND_FROM')?.split(','),
        allowImageLoad: value('PROXY_ALLOW_IMAGE_LOAD') === '1',
      },
      engine.socketPath,
    ),
  }
}

describe('learn mode: what stays refused while learning', () => {
  it.each([
    ['a guarded body on an upgrade', create(binds('/srv/a'), 'Connection: Upgrade\r\nUpgrade: tcp\r\n')],
    ['a body over 1 MiB', create(JSON.stringify({ Image: 'x'.repeat((1 << 20) + 10) }))],
    [
      'a body needing more allowances than learn mode records (65 bind sources)',
      create(binds(...Array.from({ length: 65 }, (_, i) => `/srv/many/${i}`))),
    ],
    ['a key written twice', create('{"HostConfig":{"Privileged":true},"HostConfig":{}}')],
    [
      'a body on start, under API 1.23',
      `POST /v1.23/containers/abc/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    ],
  ])('%s never reaches the engine', async (_name, raw) => {
    const outcome = await rawExchange(port, [raw], 1)
    expect(outcome.responses[0]?.status ?? 0).toBeGreaterThanOrEqual(400)
    expect(engine.seen).toEqual([])
  })
})

describe('learn mode: the engine socket while learning', () => {
  // FOUND, NOT FIXED (a design decision for the lead): learn mode forwards every guard refusal, also
  // those no allowance lifts (privileged, host namespaces, and a bind of the engine socket). A container
  // created while learning with the engine socket mounted keeps an unfiltered engine after learning ends,
  // whatever the enforcing proxy then refuses. The file lists such a request as needing --guard off, so
  // forwarding it teaches the operator nothing an enforcing guard would accept. Drop `.fails` once learn
  // mode refuses (and still records) the refusals that only --guard off lifts, or at least this one.
  it('a bind of the engine socket stays refused while learning', async () => {
    const outcome = await rawExchange(port, [create(binds('/var/run/docker.sock'))], 1)
    expect(engine.seen).toEqual([])
    expect(outcome.responses[0]?.status).toBe(403)
  })
})

describe('learn mode: the allowances it writes', () => {
  it.each([
    ['/'],
    ['//'],
    ['/var/run/'],
    ['/run/../var/run/.'],
    ['/var/run/docker.sock'],
    ['/run/containerd/containerd.sock'],
  ])('a bind of %s (forwarded while learning) is never written as an allowance', async (source) => {
    const body = binds(source)
    await rawExchange(port, [create(body)], 1)
    const { text, guard } = learnedGuard()
    expect(text).not.toMatch(/--allow-bind-from \/(?:\s|$|var\/run|run\b)/m)
    expect(
      judgeBody(
        'container-create',
        { query: '', contentType: 'application/json', body: Buffer.from(body) },
        guard,
      ),
    ).not.toBeNull()
    expect(text).toMatch(/REFUSED BY THE GUARD WHATEVER THE ALLOWANCES/)
  })

  it('a bind of /var is written as exactly /var (the socket under /var/run is /run on the host, not reached)', async () => {
    await rawExchange(port, [create(binds('/var/'))], 1)
    const { text, guard } = learnedGuard()
    expect(text).toMatch(/^# {3}flags: .*--allow-bind-from \/var(?: |$)/m)
    expect(guard.bindFrom).not.toContain('/')
    expect(
      judgeBody(
        'container-create',
        { query: '', contentType: 'application/json', body: Buffer.from(binds('/var/run')) },
        guard,
      ),
    ).not.toBeNull()
  })

  it('the engine socket of the backend itself is never written as an allowance', async () => {
    const body = binds(engine.socketPath)
    await rawExchange(port, [create(body)], 1)
    const { text, guard } = learnedGuard()
    expect(text).not.toContain(`--allow-bind-from ${engine.socketPath}`)
    expect(
      judgeBody(
        'container-create',
        { query: '', contentType: 'application/json', body: Buffer.from(body) },
        guard,
      ),
    ).not.toBeNull()
  })

  it('a bind source longer than any path (PATH_MAX) is not kept as an allowance, nor written whole', async () => {
    const before = learnedRulesText(learner.traffic(), new Date(0)).length
    for (let i = 0; i < 8; i++) {
      const outcome = await rawExchange(port, [create(binds(`/srv/${i}/${'a'.repeat(200_000)}`))], 1)
      expect(outcome.responses[0]?.status).toBeDefined()
    }
    const { text } = learnedGuard()
    // each allowance would be written three times: 8 x 3 x 200 KB
    expect(text.length - before).toBeLessThan(16_000)
    const kept = [...learner.traffic().allowances.keys()].reduce((sum, key) => sum + key.length, 0)
    expect(kept).toBeLessThan(64 * 4200)
  })
})
