import { describe, expect, it } from 'vitest'
import type { ContainerStatus } from '../../../src/process/compose.js'
import { waitUntilReady } from '../../../src/rotate/readiness.js'

/** A fake engine: each probe returns the next scripted snapshot (the last one repeats); time is simulated. */
function scripted(snapshots: ContainerStatus[][]) {
  let clock = 0
  let index = 0
  let probes = 0
  const waits: number[] = []
  return {
    options: {
      probe: async () => {
        probes++
        return snapshots[Math.min(index++, snapshots.length - 1)]!
      },
      now: () => clock,
      wait: async (ms: number) => {
        waits.push(ms)
        clock += ms
      },
    },
    probes: () => probes,
    waits,
  }
}

const up = (service: string, extra: Partial<ContainerStatus> = {}): ContainerStatus => ({
  service,
  id: `${service}-1`,
  status: 'running',
  restarts: 0,
  startedAt: 't0',
  ...extra,
})

describe('rotation readiness', () => {
  it('a service that exits 2 s after start is a failure, not "all up"', async () => {
    const engine = scripted([[up('app')], [up('app')], [up('app')], [up('app', { status: 'exited' })]])
    const result = await waitUntilReady({
      services: ['app'],
      stableMs: 10_000,
      timeoutMs: 60_000,
      ...engine.options,
    })
    expect(result.ready).toBe(false)
    expect(result.services[0]).toMatchObject({ verdict: 'failed', reason: 'the container exited' })
  })

  it('without a health check, ready only after the stability window with the same container and no restart', async () => {
    const restarted = up('app', { restarts: 1, startedAt: 't1' })
    const engine = scripted([[up('app')], [up('app')], [restarted]])
    const result = await waitUntilReady({
      services: ['app'],
      stableMs: 3000,
      timeoutMs: 60_000,
      ...engine.options,
    })
    expect(result.ready).toBe(true)
    const total = engine.waits.reduce((sum, ms) => sum + ms, 0)
    expect(total).toBeGreaterThanOrEqual(3000 + engine.waits[0]! + engine.waits[1]!)
  })

  it('with a health check, ready when healthy; unhealthy fails at once', async () => {
    const healthy = scripted([[up('db', { health: 'starting' })], [up('db', { health: 'healthy' })]])
    expect(
      (await waitUntilReady({ services: ['db'], stableMs: 10_000, timeoutMs: 60_000, ...healthy.options }))
        .ready,
    ).toBe(true)
    const sick = scripted([[up('db', { health: 'starting' })], [up('db', { health: 'unhealthy' })]])
    const result = await waitUntilReady({ services: ['db'], stableMs: 0, timeoutMs: 60_000, ...sick.options })
    expect(result.services[0]?.verdict).toBe('failed')
  })

  it('one probe per poll for all services, with backoff, and a timeout that names what it waited for', async () => {
    const engine = scripted([[up('a', { health: 'starting' }), up('b', { health: 'starting' })]])
    const result = await waitUntilReady({
      services: ['a', 'b'],
      stableMs: 0,
      timeoutMs: 20_000,
      ...engine.options,
    })
    expect(result.ready).toBe(false)
    expect(engine.probes()).toBe(result.polls)
    expect(result.polls).toBeLessThan(20)
    expect(engine.waits.slice(0, 4)).toEqual([250, 375, 563, 845])
    expect(result.services[0]?.reason).toMatch(/not ready after 20 s \(health check starting\)/)
  })
})
