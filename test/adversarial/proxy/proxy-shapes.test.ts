/**
 * The hostile corpus (corpus.ts) against the proxy in front of a recording fake engine. For each shape:
 * the engine never receives a byte of a refused request (the CANARY marker never reaches it, and its
 * parser sees exactly the allowed requests), the attacker only ever gets answers to its own requests,
 * and the next clients on the same pooled engine connections get their own answers, not the attacker's.
 */
import http from 'node:http'
import type net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../../src/proxy/backend.js'
import { resolveRules } from '../../../src/proxy/config.js'
import { createLogger } from '../../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../../src/proxy/server.js'
import { corpusRules, hostileShapes, type HostileShape } from './corpus.js'
import { rawExchange } from '../../helpers/raw-client.js'
import { startRecordingEngine, type Echo, type RecordingEngine } from '../../helpers/recording-engine.js'

let engine: RecordingEngine
let proxy: ProxyServer
let port: number
const victimAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })

beforeAll(async () => {
  engine = await startRecordingEngine()
  const backend = await createBackend({ kind: 'unix', path: engine.socketPath, mode: 0o660 })
  proxy = await createProxyServer({
    rules: resolveRules({ rules: corpusRules }),
    backend,
    logger: createLogger(0, 'text'),
  })
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
  port = (proxy.server.address() as net.AddressInfo).port
})

afterAll(async () => {
  victimAgent.destroy()
  await proxy.shutdown(100)
  await engine.close()
})

/** An ordinary client's request on a keep-alive connection; resolves with the echo it got. */
function victim(id: string): Promise<Echo> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/v1.41/containers/json?victim=${id}`,
        headers: { 'X-Client': id, 'X-Registry-Auth': `secret-of-${id}` },
        agent: victimAgent,
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve(JSON.parse(text) as Echo))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('hostile request shapes', () => {
  it('has at least 60 shapes in every class', () => {
    expect(hostileShapes.length).toBeGreaterThanOrEqual(60)
    expect(new Set(hostileShapes.map((shape) => shape.name)).size).toBe(hostileShapes.length)
  })

  it.each(hostileShapes.map((shape) => [`${shape.kind}: ${shape.name}`, shape] as [string, HostileShape]))(
    '%s: the engine never sees the refused bytes, and every answer goes to its own client',
    async (_name, shape) => {
      engine.reset()
      const outcome = await rawExchange(port, shape.parts, shape.until)
      expect(outcome.responses.map((response) => response.status)).toEqual(shape.statuses)
      for (const response of outcome.responses) {
        if (response.headers['content-type'] !== 'application/json' || response.status !== 200) continue
        const echo = JSON.parse(response.body) as Echo
        expect(echo.client).toBe('attacker')
      }
      const victims = ['v1', 'v2', 'v3']
      for (const id of victims) {
        const echo = await victim(`${id}-${shape.kind}`)
        expect(echo).toMatchObject({
          client: `${id}-${shape.kind}`,
          url: `/v1.41/containers/json?victim=${id}-${shape.kind}`,
          body: '',
        })
      }
      expect(engine.raw()).not.toContain('CANARY')
      expect(engine.seen).toEqual([
        ...shape.engineSees,
        ...victims.map((id) => `GET /v1.41/containers/json?victim=${id}-${shape.kind}`),
      ])
    },
  )
})
