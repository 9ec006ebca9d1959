/**
 * Learn mode in the proxy's request path, against a fake engine on a unix socket: what the rules or the
 * guard refuse reaches the engine (plain requests and upgrades) and is recorded; what the checks before
 * the rules refuse, an undecodable body, and a body on start stay refused and never reach the engine.
 */
import http from 'node:http'
import net from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import { resolveRuleSetConfig } from '../../../src/proxy/config.js'
import { defaultGuardSettings } from '../../../src/proxy/guard-settings.js'
import { learnedRulesText } from '../../../src/proxy/learn/learned-file.js'
import { createLearner, type Learner } from '../../../src/proxy/learn/learner.js'
import { createLogger } from '../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../src/proxy/server.js'

const dir = mkdtempSync(join(tmpdir(), 'proxy-learn-'))
const engineSocket = join(dir, 'engine.sock')
const seen: string[] = []
const logLines: string[] = []
let engine: http.Server
let proxy: ProxyServer
let learner: Learner
let port: number

beforeAll(async () => {
  engine = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    req.resume()
    req.on('end', () => res.end('{}'))
  })
  engine.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
    seen.push(`${req.method} ${req.url} upgrade`)
    socket.end('HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n')
  })
  await new Promise<void>((resolve) => engine.listen(engineSocket, resolve))
  const ruleSets = resolveRuleSetConfig({ rules: 'GET %API_PREFIX_CONTAINERS%/json' })
  const logger = createLogger(7, 'text', (line) => logLines.push(line))
  learner = createLearner(ruleSets, { logger, guard: defaultGuardSettings })
  proxy = await createProxyServer({
    ruleSets,
    backend: await createBackend({ kind: 'unix', path: engineSocket, mode: 0o660 }),
    logger,
    learner,
  })
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  port = (proxy.server.address() as net.AddressInfo).port
})

afterAll(async () => {
  await proxy.shutdown(100)
  engine.close()
})

beforeEach(() => {
  seen.length = 0
  logLines.length = 0
})

/** Sends raw request bytes and returns the status line of the answer. */
function raw(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text))
    let answer = ''
    socket.on('data', (chunk) => {
      answer += chunk
      if (answer.includes('\r\n')) {
        socket.destroy()
        resolve(answer.split('\r\n')[0]!)
      }
    })
    socket.on('error', reject)
  })
}

const post = (path: string, body: string, contentType = 'application/json') =>
  raw(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )

describe('learn mode in the request path', () => {
  it('forwards what the rules refuse and logs it as "would refuse"', async () => {
    expect(
      await raw('GET /v1.41/containers/abc/json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    ).toMatch(/ 200 /)
    expect(seen).toEqual(['GET /v1.41/containers/abc/json'])
    expect(logLines.join('\n')).toMatch(
      /msg="would refuse" method=GET path=\/v1\.41\/containers\/abc\/json client=127\.0\.0\.1:\d+ ruleSet=\* reason="no rule allows it"/,
    )
  })

  it('forwards what the guard refuses and records the allowance', async () => {
    expect(await post('/v1.41/images/load', 'tar')).toMatch(/ 200 /)
    expect(await post('/v1.41/containers/create', '{"HostConfig":{"CapAdd":["SYS_TIME"]}}')).toMatch(/ 200 /)
    expect(seen).toEqual(['POST /v1.41/images/load', 'POST /v1.41/containers/create'])
    expect(learnedRulesText(learner.traffic(), new Date(0))).toContain(
      '#   flags: --allow-cap SYS_TIME --allow-image-load\n',
    )
  })

  it('forwards an upgrade the rules refuse, and records it', async () => {
    const status = await raw(
      'POST /v1.41/exec/abc123/start HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 2\r\n\r\n{}',
    )
    expect(status).toMatch(/ 101 /)
    expect(seen).toEqual(['POST /v1.41/exec/abc123/start upgrade'])
    expect(learnedRulesText(learner.traffic(), new Date(0))).toContain(
      '\nPOST %API_PREFIX_EXEC%/%EXEC_ID%/start\n',
    )
  })

  it.each([
    [
      'a body the guard cannot decode',
      () => post('/v1.41/containers/create', '{"Image":"a","Image":"b"}'),
      / 403 /,
    ],
    ['a body that is not JSON', () => post('/v1.41/containers/create', '{}', 'text/plain'), / 403 /],
    ['a body on start', () => post('/v1.41/containers/abc/start', '{}'), / 403 /],
    [
      'a bad percent-escape',
      () => raw('GET /v1.41/containers/%zz/json HTTP/1.1\r\nHost: x\r\n\r\n'),
      / 400 /,
    ],
    [
      'a smuggling shape',
      () =>
        raw(
          'POST /v1.41/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        ),
      / 400 /,
    ],
  ])('keeps %s refused', async (_what, send, status) => {
    expect(await send()).toMatch(status)
    expect(seen).toEqual([])
  })
})
