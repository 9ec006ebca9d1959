/**
 * `vault proxy serve` (the built CLI, configured by PROXY_* variables as the example stack does) relaying
 * 64 KB answers on 16 keep-alive connections: the serving process runs with glibc's malloc told to keep
 * freed heap (src/proxy/launch.ts), so the buffers each answer is read into are reused instead of being
 * handed back to the kernel and faulted in again. Measured here, 4,000 answers after 1,000 to warm up:
 * 0.03-0.05 faults per answer with it, 0.29-1.6 with glibc's default (GLIBC_TUNABLES set to
 * `glibc.malloc.trim_threshold=131072`, three runs each); the bound sits between the two. How a
 * GLIBC_TUNABLES of the user's own is merged is test/unit/proxy/launch.test.ts's.
 * And its private memory through 60,000 answers: V8 frees the promoted buffers only after about 64 MB
 * of them without src/proxy/buffer-garbage.ts (peaks of 54.6 and 62.0 MiB in two runs of three over
 * 40,000 answers; 20.4-29.8 MiB over 60,000 with it). On a faster machine incremental marking held
 * the answers relayed during each cycle: 27.1-54.4 MiB (4 of 6 runs over 40) until launch.ts turned it
 * off, 19.9-20.3 MiB since (docs/proxy-performance.md).
 */
import { spawn } from 'node:child_process'
import http from 'node:http'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../harness/ports.js'
import { runJs } from '../helpers/cli.js'

const engineSocket = join(mkdtempSync(join(tmpdir(), 'proxy-faults-')), 'engine.sock')
const answer = Buffer.from(JSON.stringify([{ Id: 'a'.repeat(64), Names: ['/x'], Pad: 'p'.repeat(65_600) }]))
let engine: http.Server

beforeAll(async () => {
  engine = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume()
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': answer.length })
    res.end(answer)
  })
  await new Promise<void>((resolve) => engine.listen(engineSocket, resolve))
})

afterAll(() => {
  engine.closeAllConnections()
  engine.close()
})

/** Minor page faults of a process so far (/proc/PID/stat, field 10). */
function minorFaults(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7])
}

/** Private (anonymous) resident memory of a process now, in KiB (/proc/PID/status, RssAnon). */
function privateKiB(pid: number): number {
  return Number(/RssAnon:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
}

function environmentOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
}

/** `count` container lists over `connections` keep-alive connections; resolves with the statuses. */
async function lists(port: number, connections: number, count: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections })
  const statuses: number[] = []
  const one = () =>
    new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/v1.47/containers/json', agent }, (res) => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('end', () => {
          statuses.push(bytes === answer.length ? res.statusCode! : -1)
          resolve()
        })
      })
      req.on('error', () => {
        statuses.push(0)
        resolve()
      })
    })
  let next = 0
  const loop = async () => {
    while (next++ < count) await one()
  }
  await Promise.all(Array.from({ length: connections }, loop))
  agent.destroy()
  return statuses
}

async function serve() {
  const port = await freePort()
  const child = spawn(process.execPath, [runJs, 'proxy', 'serve'], {
    env: {
      PATH: process.env.PATH,
      PROXY_BACKEND_ADDR: `unix://${engineSocket}`,
      PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
      PROXY_RULES: 'GET %API_PREFIX_CONTAINERS%/json',
      PROXY_LOG_LEVEL: '3',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  child.stderr!.on('data', (chunk) => (log += chunk))
  const exited = new Promise((resolve) => child.on('exit', resolve))
  for (let i = 0; i < 100 && (await lists(port, 1, 1))[0] !== 200; i++)
    await new Promise((resolve) => setTimeout(resolve, 50))
  return {
    port,
    pid: child.pid!,
    log: () => log,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

describe('vault proxy serve relaying 64 KB answers', () => {
  it('keeps its freed buffers: under 0.15 page faults per answer at 16 connections', async () => {
    const proxy = await serve()
    try {
      expect(environmentOf(proxy.pid)).toContain('GLIBC_TUNABLES=glibc.malloc.trim_threshold=4194304')
      expect((await lists(proxy.port, 16, 1_000)).every((status) => status === 200)).toBe(true)
      const before = minorFaults(proxy.pid)
      const statuses = await lists(proxy.port, 16, 4_000)
      const perAnswer = (minorFaults(proxy.pid) - before) / statuses.length
      console.log(`serving process: ${perAnswer.toFixed(3)} minor page faults per 64 KB answer`)
      expect(statuses.every((status) => status === 200)).toBe(true)
      expect(perAnswer).toBeLessThan(0.15)
    } finally {
      await proxy.stop()
    }
    expect(proxy.log()).not.toContain('unexpected error')
  })

  it('keeps its private memory under 40 MiB through 60,000 answers at 16 connections', async () => {
    const proxy = await serve()
    let peak = 0
    const sampler = setInterval(() => (peak = Math.max(peak, privateKiB(proxy.pid))), 20)
    try {
      const started = Date.now()
      const statuses = await lists(proxy.port, 16, 60_000)
      console.log(
        `serving process: private memory peak ${(peak / 1024).toFixed(1)} MiB over ${statuses.length} answers ` +
          `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      )
      expect(statuses.every((status) => status === 200)).toBe(true)
      expect(peak).toBeGreaterThan(0)
      expect(peak / 1024).toBeLessThan(40)
    } finally {
      clearInterval(sampler)
      await proxy.stop()
    }
  }, 120_000)
})
