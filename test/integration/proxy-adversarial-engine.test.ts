/**
 * The hostile corpus's `dockerd` subset (test/adversarial/proxy/corpus.ts: Connection naming
 * Content-Length, CL.TE and TE.CL, pipelining behind a refusal, a refused upgrade followed by a smuggled
 * create, 100-continue on a refused create, dot-segment and encoded-slash tricks, DELETE) thrown at the
 * proxy (the corpus rules) in front of the real private engine, through a relay that records every byte
 * the engine receives. For each shape: the attacker's refusals are the corpus's, the engine never receives
 * the CANARY marker of a refused request, and the containers marked CANARY on it are unchanged (no
 * privileged container with the host's root mounted was created, none was deleted; other files' containers
 * come and go meanwhile and are not compared).
 */
import { mkdtempSync } from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackend } from '../../src/proxy/backend.js'
import { resolveRules } from '../../src/proxy/config.js'
import { createLogger } from '../../src/proxy/log.js'
import { createProxyServer, type ProxyServer } from '../../src/proxy/server.js'
import { corpusRules, hostileShapes, type HostileShape } from '../adversarial/proxy/corpus.js'
import { rawExchange } from '../helpers/raw-client.js'
import { startRecordingRelay } from '../helpers/recording-engine.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const subset = hostileShapes.filter((shape) => shape.dockerd)
const received: Buffer[] = []
let relay: net.Server
let proxy: ProxyServer
let port: number

/**
 * The engine's containers a refused request would have made (every one carries the marker CANARY, in
 * the name or a label), all states, asked directly on its socket. Only those: other test files create and
 * remove containers on the same engine meanwhile.
 */
function containers(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath: engine!.socket, path: '/v1.41/containers/json?all=1' }, (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () =>
          resolve(
            (JSON.parse(text) as { Id: string; Names: string[]; Labels: Record<string, string> | null }[])
              .filter((container) => JSON.stringify([container.Names, container.Labels]).includes('CANARY'))
              .map((container) => `${container.Id} ${container.Names.join(',')}`)
              .sort(),
          ),
        )
      })
      .on('error', reject)
  })
}

describe.skipIf(!engine)(`hostile shapes against the real engine (${unavailableReason('engine')})`, () => {
  beforeAll(async () => {
    const relayPath = join(mkdtempSync(join(tmpdir(), 'proxy-adversarial-engine-')), 'engine.sock')
    relay = await startRecordingRelay(relayPath, engine!.socket, received)
    proxy = await createProxyServer({
      rules: resolveRules({ rules: corpusRules }),
      backend: await createBackend({ kind: 'unix', path: relayPath, mode: 0o660 }),
      logger: createLogger(0, 'text'),
    })
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
    port = (proxy.server.address() as net.AddressInfo).port
  })

  afterAll(async () => {
    await proxy?.shutdown(100)
    relay?.close()
  })

  it('runs at least ten shapes', () => {
    expect(subset.length).toBeGreaterThanOrEqual(10)
  })

  it.each(subset.map((shape) => [`${shape.kind}: ${shape.name}`, shape] as [string, HostileShape]))(
    '%s: refused as in the corpus, no CANARY byte reaches dockerd, no CANARY container appears',
    async (_name, shape) => {
      const before = await containers()
      received.length = 0
      const outcome = await rawExchange(port, shape.parts, shape.until)
      const refusals = (statuses: number[]) => statuses.filter((status) => status === 400 || status === 403)
      expect(refusals(outcome.responses.map((response) => response.status))).toEqual(refusals(shape.statuses))
      expect(await containers()).toEqual(before)
      expect(Buffer.concat(received).toString('latin1')).not.toContain('CANARY')
    },
  )
})
