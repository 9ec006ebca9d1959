/**
 * When recreated services count as back: a service with a health check when it is healthy; one without
 * when the same container has been running, without a restart, for the stability window (observed
 * here, so the engine's clock does not matter). A container that exits, dies or turns unhealthy fails
 * at once. Every poll is one status query for all services; polls back off from 250 ms to 2 s.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ContainerStatus } from '../process/compose.js'

export interface ReadinessOptions {
  services: string[]
  /** One status query for every container of the services. */
  probe: () => Promise<ContainerStatus[]>
  /** Milliseconds a container without a health check must stay up. */
  stableMs: number
  timeoutMs: number
  now?: () => number
  wait?: (ms: number) => Promise<unknown>
}

export type ServiceVerdict = 'ready' | 'failed' | 'waiting'

export interface ServiceReadiness {
  service: string
  containerId?: string
  status: string
  health?: string
  restarts?: number
  verdict: ServiceVerdict
  /** Why a service failed or is still waiting. */
  reason?: string
}

export interface ReadinessResult {
  ready: boolean
  services: ServiceReadiness[]
  polls: number
}

/** Polls until every service is ready, one fails, or the time is up. */
export async function waitUntilReady(options: ReadinessOptions): Promise<ReadinessResult> {
  const now = options.now ?? Date.now
  const wait = options.wait ?? sleep
  const deadline = now() + options.timeoutMs
  const firstSeenUp = new Map<string, { key: string; at: number }>()
  let delay = 250
  let polls = 0
  for (;;) {
    const statuses = await options.probe()
    polls++
    const at = now()
    const services = options.services.map((service) =>
      judge(
        service,
        statuses.filter((status) => status.service === service),
        firstSeenUp,
        {
          at,
          stableMs: options.stableMs,
        },
      ),
    )
    const failed = services.some((service) => service.verdict === 'failed')
    const ready = services.every((service) => service.verdict === 'ready')
    if (ready || failed) return { ready, services, polls }
    if (at >= deadline) {
      for (const service of services)
        if (service.verdict === 'waiting')
          Object.assign(service, {
            verdict: 'failed',
            reason: `not ready after ${options.timeoutMs / 1000} s (${service.reason})`,
          })
      return { ready: false, services, polls }
    }
    await wait(Math.min(delay, Math.max(0, deadline - at)))
    delay = Math.min(Math.round(delay * 1.5), 2000)
  }
}

function judge(
  service: string,
  containers: ContainerStatus[],
  firstSeenUp: Map<string, { key: string; at: number }>,
  clock: { at: number; stableMs: number },
): ServiceReadiness {
  const { at, stableMs } = clock
  const container = containers[0]
  if (!container) return { service, status: 'missing', verdict: 'waiting', reason: 'no container yet' }
  const base = {
    service,
    containerId: container.id,
    status: container.status,
    health: container.health,
    restarts: container.restarts,
  }
  if (containers.some((entry) => entry.status === 'exited' || entry.status === 'dead'))
    return { ...base, verdict: 'failed', reason: `the container ${container.status}` }
  if (containers.some((entry) => entry.health === 'unhealthy'))
    return { ...base, verdict: 'failed', reason: 'its health check reports unhealthy' }
  if (containers.some((entry) => entry.status !== 'running'))
    return { ...base, verdict: 'waiting', reason: container.status }
  if (containers.every((entry) => entry.health !== undefined))
    return containers.every((entry) => entry.health === 'healthy')
      ? { ...base, verdict: 'ready' }
      : { ...base, verdict: 'waiting', reason: 'health check starting' }
  const key = containers.map((entry) => `${entry.id}/${entry.startedAt}/${entry.restarts}`).join(',')
  const seen = firstSeenUp.get(service)
  if (!seen || seen.key !== key) firstSeenUp.set(service, { key, at })
  const upFor = at - (firstSeenUp.get(service)?.at ?? at)
  return upFor >= stableMs
    ? { ...base, verdict: 'ready' }
    : {
        ...base,
        verdict: 'waiting',
        reason: `up ${Math.floor(upFor / 1000)} s of ${stableMs / 1000} s without a restart`,
      }
}
