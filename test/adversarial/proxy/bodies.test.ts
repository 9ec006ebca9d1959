/**
 * Bodies on endpoints that take none (issue 34, section 1): under the `fine-grained` preset (start, stop,
 * restart), `POST /v1.23/containers/X/start` with a HostConfig body rewrote the container on a 20.10 engine
 * (host `/` and the engine socket mounted, host PID, Privileged), as API versions below 1.24 apply a
 * HostConfig sent to start. Each row is one way to carry such a body; the property checked is that the
 * attacker gets 403 with a JSON message and that the engine never receives a byte of the body (the
 * CANARY marker) nor the request itself. Bodiless starts, and `Content-Length: 0`, still pass.
 */
import type net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import { resolveRules } from '../../../src/proxy/config.js'
import { createLogger } from '../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../src/proxy/server.js'
import { request } from './corpus.js'
import { rawExchange } from '../../helpers/raw-client.js'
import { startRecordingEngine, type RecordingEngine } from '../../helpers/recording-engine.js'

let engine: RecordingEngine
let proxy: ProxyServer
let port: number
const logLines: string[] = []

beforeAll(async () => {
  engine = await startRecordingEngine()
  proxy = await createProxyServer({
    rules: resolveRules({
      preset: 'fine-grained',
      rules:
        'POST %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/(?:kill|pause|unpause)\nPOST /v[0-9.]+/libpod/(?:containers|pods)/[^/]+/(?:start|stop|restart|kill|pause|unpause)\nPOST,PUT %API_PREFIX_CONTAINERS%/.*\nPOST /v[0-9.]+/containers/.+',
    }),
    backend: await createBackend({ kind: 'unix', path: engine.socketPath, mode: 0o660 }),
    logger: createLogger(7, 'text', (line) => logLines.push(line)),
  })
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  port = (proxy.server.address() as net.AddressInfo).port
})

afterAll(async () => {
  await proxy.shutdown(100)
  await engine.close()
})

/** The attack: a HostConfig that owns the host, as the 1.23 API applies it at start. */
const hostConfig = JSON.stringify({
  Binds: ['/:/host', '/var/run/docker.sock:/var/run/docker.sock'],
  PidMode: 'host',
  CapAdd: ['ALL'],
  Privileged: true,
  Labels: { CANARY: '1' },
})
const json = 'Content-Type: application/json\r\n'
const withLength = (body: string) => `${json}Content-Length: ${Buffer.byteLength(body)}\r\n`
const chunked = (body: string) => `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`

interface BodyCase {
  name: string
  /** The raw request. */
  raw: string
}

const starts = (target: string): BodyCase[] => [
  {
    name: `${target} with a Content-Length body`,
    raw: request('POST', target, withLength(hostConfig), hostConfig),
  },
  {
    name: `${target} with a chunked body`,
    raw: request('POST', target, `${json}Transfer-Encoding: chunked\r\n`, chunked(hostConfig)),
  },
]

const refused: BodyCase[] = [
  ...starts('/v1.23/containers/CANARYx/start'),
  ...starts('/v1.41/containers/CANARYx/start'),
  ...starts('/containers/CANARYx/start'),
  ...['stop', 'restart', 'kill', 'pause', 'unpause'].flatMap((action) =>
    starts(`/v1.23/containers/CANARYx/${action}`),
  ),
  ...starts('/v1.23/containers/CANARYx/start/'),
  ...starts('/v1.23./containers/CANARYx/start'),
  ...starts('/v1.23//containers/CANARYx/./start'),
  ...starts('/v1.23/containers/CANARYx/%73tart'),
  ...starts('/v4.0/libpod/containers/CANARYx/start'),
  ...starts('/v4.0/libpod/pods/CANARYx/start'),
  {
    name: 'start with an empty chunked body (any Transfer-Encoding counts as a body)',
    raw: request('POST', '/v1.23/containers/CANARYx/start', 'Transfer-Encoding: chunked\r\n', '0\r\n\r\n'),
  },
  {
    name: 'start with Expect: 100-continue and a body',
    raw: request(
      'POST',
      '/v1.23/containers/CANARYx/start',
      `Expect: 100-continue\r\n${withLength(hostConfig)}`,
      hostConfig,
    ),
  },
  {
    name: 'start with upgrade headers and a body',
    raw: request(
      'POST',
      '/v1.23/containers/CANARYx/start',
      `Connection: Upgrade\r\nUpgrade: tcp\r\n${withLength(hostConfig)}`,
      hostConfig,
    ),
  },
  {
    name: 'a create under API 1.23 (a write with a body below 1.24)',
    raw: request('POST', '/v1.23/containers/create?name=CANARY', withLength(hostConfig), hostConfig),
  },
  {
    name: 'another write with a body under API 1.0 (read as a create body by the guard)',
    raw: request('POST', '/v1.0/containers/CANARYx/attach', withLength(hostConfig), hostConfig),
  },
]

describe('bodies on endpoints that take none', () => {
  it.each(refused.map((row) => [row.name, row] as [string, BodyCase]))(
    '%s: 403 with a JSON message, the engine never sees the request',
    async (_name, row) => {
      engine.reset()
      const outcome = await rawExchange(port, [row.raw], 1)
      expect(outcome.responses.map((response) => response.status)).toEqual([403])
      const message = (JSON.parse(outcome.responses[0]!.body) as { message: string }).message
      expect(message).toMatch(/^vault proxy refused POST \S+: .*(takes no body|host-escape guard)/)
      expect(engine.raw()).not.toContain('CANARY')
      expect(engine.seen).toEqual([])
    },
  )

  it.each([
    ['a start without a body', request('POST', '/v1.23/containers/web/start')],
    [
      'a start with Content-Length: 0',
      request('POST', '/v1.23/containers/web/start', 'Content-Length: 0\r\n'),
    ],
    ['a restart under the engine version', request('POST', '/containers/web/restart?t=1')],
    ['a libpod start', request('POST', '/v4.0/libpod/containers/web/start')],
  ])('%s is forwarded', async (_name, raw) => {
    engine.reset()
    const outcome = await rawExchange(port, [raw], 1)
    expect(outcome.responses.map((response) => response.status)).toEqual([200])
    expect(engine.seen).toHaveLength(1)
  })

  it('logs the refusal with the client and the reason', async () => {
    logLines.length = 0
    await rawExchange(port, [starts('/v1.23/containers/web/start')[0]!.raw], 1)
    expect(logLines.join('')).toMatch(
      /decision=deny client=127\.0\.0\.1:\d+ .*reason="this endpoint takes no body/,
    )
  })
})

/** Create bodies the host-escape guard refuses (issue 34, section 2): none may reach the engine. */
const createRow = (name: string, body: string | Buffer, headers?: string) => {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body)
  const head = request(
    'POST',
    '/v1.41/containers/create?name=CANARY',
    headers ?? `${json}Content-Length: ${bytes.length}\r\n`,
  )
  return { name, raw: Buffer.concat([Buffer.from(head), bytes]) }
}
const big = `{"Image":"x","Labels":{"a":"${'x'.repeat(1 << 20)}"},"HostConfig":{"Privileged":true}}`

const guarded = [
  createRow('lower-case keys', '{"hostconfig":{"privileged":true}}'),
  createRow('a case variant after a falsy default', '{"HostConfig":{"Privileged":false,"privileged":true}}'),
  createRow('an exact repeat', '{"HostConfig":{"Privileged":true,"Privileged":false}}'),
  createRow('Privileged at the top level', '{"Image":"x","Privileged":true}'),
  createRow('a Kelvin sign in NetworkMode', '{"HostConfig":{"Networ\u212aMode":"host"}}'),
  createRow('an escaped key', '{"HostConfig":{"Privil\\u0065ged":true}}'),
  createRow('CapAdd as one string', '{"HostConfig":{"CapAdd":"SYS_ADMIN"}}'),
  createRow('not JSON', '{"HostConfig":{"Privileged":true}'),
  createRow(
    'text/plain',
    '{"HostConfig":{"Privileged":true}}',
    'Content-Type: text/plain\r\nContent-Length: 34\r\n',
  ),
  createRow('no Content-Type', '{"HostConfig":{"Privileged":true}}', 'Content-Length: 34\r\n'),
  createRow('a UTF-8 BOM', '\ufeff{"HostConfig":{"Privileged":true}}'),
  createRow(
    'invalid UTF-8',
    Buffer.from([...Buffer.from('{"HostConfig":{"Privileged":true,"x":"'), 0xff, ...Buffer.from('"}}')]),
  ),
  createRow('a body over 1 MiB (Content-Length)', big),
  createRow('a body over 1 MiB (chunked)', chunked(big), `${json}Transfer-Encoding: chunked\r\n`),
  createRow(
    'a chunked privileged body',
    chunked('{"HostConfig":{"Privileged":true}}'),
    `${json}Transfer-Encoding: chunked\r\n`,
  ),
  {
    name: 'a privileged create with upgrade headers',
    raw: Buffer.from(
      request(
        'POST',
        '/v1.41/containers/create?name=CANARY',
        `Connection: Upgrade\r\nUpgrade: tcp\r\n${withLength('{"HostConfig":{"Privileged":true}}')}`,
        '{"HostConfig":{"Privileged":true}}',
      ),
    ),
  },
]

describe('the host-escape guard in front of the engine', () => {
  it.each(guarded.map((row) => [row.name, row] as const))(
    '%s: 403 naming the field, the engine never sees the request',
    async (_name, row) => {
      engine.reset()
      const outcome = await rawExchange(port, [row.raw], 1)
      expect(outcome.responses.map((response) => response.status)).toEqual([403])
      expect((JSON.parse(outcome.responses[0]!.body) as { message: string }).message).toMatch(
        /^vault proxy refused POST \/v1\.41\/containers\/create: host-escape guard: /,
      )
      expect(engine.raw()).not.toContain('CANARY')
      expect(engine.seen).toEqual([])
    },
  )

  it('a body cut before its Content-Length never reaches the engine', async () => {
    engine.reset()
    const body = '{"Image":"x","HostConfig":{"Privileged":false}}'
    const head = request(
      'POST',
      '/v1.41/containers/create?name=CANARY',
      `${json}Content-Length: ${body.length + 10}\r\n`,
    )
    const outcome = await rawExchange(port, [head + body], 1, 300)
    expect(outcome.responses).toEqual([])
    expect(engine.seen).toEqual([])
  })

  it('forwards a benign create as the exact bytes sent, and logs a refusal with the rule set and the field', async () => {
    engine.reset()
    const body = '{"Image":"x", "HostConfig": {"Privileged": false, "CapAdd": null, "Binds": []}}'
    const outcome = await rawExchange(
      port,
      [request('POST', '/v1.41/containers/create', withLength(body), body)],
      1,
    )
    expect(outcome.responses.map((response) => response.status)).toEqual([200])
    expect(JSON.parse(outcome.responses[0]!.body)).toMatchObject({ body })
    logLines.length = 0
    await rawExchange(port, [guarded[0]!.raw], 1)
    expect(logLines.join('')).toMatch(
      /decision=deny client=127\.0\.0\.1:\d+ .*ruleSet=\* field=HostConfig\.Privileged/,
    )
  })
})
