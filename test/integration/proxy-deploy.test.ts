/**
 * Deployment: the proxy as a container built here (Node binary + libraries + dist/proxy), run with the
 * seed's settings (--memory 64m --memory-reservation 32m --read-only --privileged, the engine socket
 * mounted read-only) on --network host listening on 127.0.0.1. Mixed requests and open streams for
 * more than a minute: no OOM kill, no errors, healthy.
 */
import { execFileSync } from 'node:child_process'
import http from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { buildProxyImage } from '../harness/node-image.js'
import { freePort } from '../harness/ports.js'
import { engineGrantsPrivileged } from '../harness/engine.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const suffix = Math.random().toString(36).slice(2, 8)
const proxyName = `vault-proxy-${suffix}`
const tickerName = `proxy-deploy-ticker-${suffix}`
const tag = 'vault-test/proxy:latest'
const durationMs = Number(process.env.VAULT_PROXY_SOAK_MS ?? 65_000)

const docker = (...args: string[]) =>
  execFileSync('docker', ['-H', engine!.dockerHost, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 << 20,
  })

/** The container's memory use in MiB as `docker stats` reports it (cgroup usage). */
function memoryMiB(name: string): number {
  const usage = docker('stats', '--no-stream', '--format', '{{.MemUsage}}', name).split('/')[0]!.trim()
  const value = parseFloat(usage)
  return usage.endsWith('GiB') ? value * 1024 : usage.endsWith('KiB') ? value / 1024 : value
}

const privileged = engine ? engineGrantsPrivileged(engine) : false
const privilegedNote = privileged
  ? '--privileged'
  : 'WITHOUT --privileged: the engine cannot grant every capability on this machine'

function get(port: number, agent: http.Agent, method: string, path: string) {
  return new Promise<number>((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.on('error', () => resolve(-1))
    req.end()
  })
}

function openStream(port: number, path: string, counter: { chunks: number; closed: boolean }) {
  const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
    res.on('data', () => counter.chunks++)
    res.on('close', () => (counter.closed = true))
  })
  req.on('error', () => (counter.closed = true))
  return req
}

describe.skipIf(!engine)(
  `proxy container under the seed's limits (${unavailableReason('engine')}; ${privilegedNote})`,
  () => {
    afterAll(() => {
      for (const name of [proxyName, tickerName]) {
        try {
          docker('rm', '-f', name)
        } catch {
          /* already gone */
        }
      }
    })

    it(
      'serves mixed requests and open streams for over a minute without OOM or errors',
      async () => {
        buildProxyImage(engine!.dockerHost, tag)
        const port = await freePort()
        docker(
          'run',
          '-d',
          '--name',
          tickerName,
          '--network',
          'none',
          engine!.busyboxImage,
          'sh',
          '-c',
          'while true; do echo tick; sleep 0.2; done',
        )
        docker(
          'run',
          '-d',
          '--name',
          proxyName,
          '--memory',
          '64m',
          '--memory-reservation',
          '32m',
          '--read-only',
          ...(privileged ? ['--privileged'] : []),
          '--network',
          'host',
          '-v',
          `${engine!.socket}:/var/run/docker.sock:ro`,
          '-e',
          `PROXY_FRONTEND_ADDR=tcp://127.0.0.1:${port}`,
          '-e',
          'PROXY_LOG_LEVEL=4',
          tag,
        )
        const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
        const deadline = Date.now() + 20_000
        while ((await get(port, agent, 'GET', '/_ping')) !== 200) {
          if (Date.now() > deadline) throw new Error(`the proxy did not answer: ${docker('logs', proxyName)}`)
          await new Promise((resolve) => setTimeout(resolve, 200))
        }
        const events = { chunks: 0, closed: false }
        const logs = { chunks: 0, closed: false }
        const streams = [
          openStream(port, '/v1.41/events', events),
          openStream(port, `/v1.41/containers/${tickerName}/logs?follow=1&stdout=1`, logs),
        ]
        const mix: [string, string, number][] = [
          ['GET', '/_ping', 200],
          ['HEAD', '/_ping', 200],
          ['GET', '/v1.41/version', 200],
          ['GET', '/v1.41/containers/json?all=1', 200],
          ['GET', `/v1.41/containers/${tickerName}/json`, 200],
          ['GET', '/v1.41/images/json', 200],
          ['GET', '/v1.41/networks', 200],
          ['DELETE', `/v1.41/containers/${tickerName}`, 403],
          ['POST', '/v1.41/images/create?fromImage=busybox', 403],
        ]
        let requests = 0
        const failures: string[] = []
        const end = Date.now() + durationMs
        let round = 0
        let peakMiB = 0
        while (Date.now() < end) {
          const results = await Promise.all(
            Array.from({ length: 4 }, () => mix)
              .flat()
              .map(async ([method, path, status]) => {
                const got = await get(port, agent, method, path)
                return got === status ? undefined : `${method} ${path}: ${got}`
              }),
          )
          requests += results.length
          failures.push(...results.filter((failure): failure is string => failure !== undefined))
          if (++round % 20 === 0) {
            const output = execFileSync(
              'docker',
              ['-H', `tcp://127.0.0.1:${port}`, 'exec', tickerName, 'echo', 'exec-ok'],
              { encoding: 'utf8' },
            )
            if (output !== 'exec-ok\n') failures.push(`exec: ${output}`)
            peakMiB = Math.max(peakMiB, memoryMiB(proxyName))
            docker('pause', tickerName)
            docker('unpause', tickerName)
          }
        }
        // the ticker prints every 0.2 s: the log stream is still flowing once another chunk arrives
        const logChunksBefore = logs.chunks
        for (let waited = 0; logs.chunks <= logChunksBefore && waited < 10_000; waited += 50)
          await new Promise((resolve) => setTimeout(resolve, 50))
        expect(logs.chunks).toBeGreaterThan(logChunksBefore)
        expect(events.chunks).toBeGreaterThan(0)
        expect(events.closed || logs.closed).toBe(false)
        for (const stream of streams) stream.destroy()
        agent.destroy()

        const state = JSON.parse(docker('inspect', '--format', '{{json .State}}', proxyName))
        process.stderr.write(
          `[proxy-deploy] ${requests} requests over ${durationMs} ms; peak sampled memory ${peakMiB.toFixed(1)} MiB of 64; health ${state.Health?.Status}\n`,
        )
        expect(failures).toEqual([])
        expect(requests).toBeGreaterThan(1000)
        expect(state).toMatchObject({ Running: true, OOMKilled: false, Restarting: false })
        expect(state.Health.Status).toBe('healthy')
        expect(peakMiB).toBeLessThan(48)
        expect(docker('logs', proxyName)).not.toMatch(/level=error/)
      },
      durationMs + 120_000,
    )
  },
)
