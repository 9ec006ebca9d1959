/** The request line of the proxy's log: a long path is cut, so a flood of them cannot flood the log. */
import { describe, expect, it } from 'vitest'
import { logRequest, type ProxyContext } from '../../../src/proxy/context.js'
import { createLogger } from '../../../src/proxy/log.js'

describe('logRequest', () => {
  it('logs at most 512 characters of a path (a 60 KB /v1.1.1… path refused 200 times wrote 13 MB)', () => {
    const lines: string[] = []
    const context = { logger: createLogger(7, 'text', (line) => lines.push(line)) } as unknown as ProxyContext
    const path = '/v' + '1.'.repeat(30_000) + '1/x'
    logRequest(context, { method: 'GET', path, status: 400, decision: 'invalid', client: 'c', startedAt: 0 })
    logRequest(context, {
      method: 'GET',
      path: '/_ping',
      status: 403,
      decision: 'deny',
      client: 'c',
      startedAt: 0,
    })
    expect(lines[0]!.length).toBeLessThan(1_000)
    expect(lines[0]).toContain(`path=${path.slice(0, 512)}...`)
    expect(lines[1]).toContain('path=/_ping ')
  })
})
