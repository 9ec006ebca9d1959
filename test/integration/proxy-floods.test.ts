/**
 * Issue 34, section 6: `vault proxy serve` (the built CLI) configured as the example stack ships it
 * (examples/stack/compose.yaml: PROXY_PRESET monitoring, PROXY_REDACT_ENV on, log level 6) in front of
 * the real engine, its processes in a cgroup with the stack's 64 MiB memory limit, under each flood the
 * issue measured: unfinished heads, long version prefixes, clients that do not read masked answers, and
 * one source holding every connection. Each flood is bounded and loopback only; its peers bind distinct
 * 127.0.0.x addresses. Property checked for each: the proxy is alive afterwards (never OOM-killed), and
 * an ordinary client from another address is answered every time, the proxy adding at most 100 ms (p99)
 * to what the engine itself takes for the same request at the same moment.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../harness/ports.js'
import { runJs } from '../helpers/cli.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'

const engine = engineOrNull()
const suffix = Math.random().toString(36).slice(2, 8)
/** A container whose inspect answer is large (about 900 KB of labels): masked, so held whole. */
const bigContainer = `floods-big-${suffix}`
const memoryLimit = 64 << 20

/** A memory cgroup of 64 MiB (v2, or v1's memory controller); its procs file and how to read it. */
function makeCgroup(): { procs: string; peakBytes(): number; oomKills(): number; remove(): void } {
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers')
  const dir = v2 ? `/sys/fs/cgroup/vault-floods-${suffix}` : `/sys/fs/cgroup/memory/vault-floods-${suffix}`
  mkdirSync(dir)
  writeFileSync(`${dir}/${v2 ? 'memory.max' : 'memory.limit_in_bytes'}`, String(memoryLimit))
  if (v2) writeFileSync(`${dir}/memory.swap.max`, '0')
  const read = (name: string) => readFileSync(`${dir}/${name}`, 'utf8')
  return {
    procs: `${dir}/cgroup.procs`,
    peakBytes: () => Number((v2 ? read('memory.peak') : read('memory.max_usage_in_bytes')).trim()),
    oomKills: () => {
      const events = v2 ? read('memory.events') : read('memory.oom_control')
      return Number(/oom_kill (\d+)/.exec(events)?.[1] ?? 0)
    },
    remove: () => rmdirSync(dir),
  }
}

/** Sends `body` as JSON straight to the engine's socket (test set-up, not through the proxy). */
function engineRequest(method: string, path: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath: engine!.socket, method, path, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode!))
      },
    )
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/** One ordinary request from 127.0.0.2: its status (0 when it failed) and how long it took. */
function ordinary(port: number, path = '/v1.41/containers/json'): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port, path, localAddress: '127.0.0.2', agent: false },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - started }))
      },
    )
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }))
    req.setTimeout(5_000, () => req.destroy())
  })
}

/** The same list asked of the engine directly, for the time the machine itself takes. */
function direct(): Promise<number> {
  const started = performance.now()
  return new Promise((resolve) => {
    const req = http.get(
      { socketPath: engine!.socket, path: '/v1.41/containers/json', agent: false },
      (res) => {
        res.resume()
        res.on('end', () => resolve(performance.now() - started))
      },
    )
    req.on('error', () => resolve(performance.now() - started))
  })
}

/** Opens a connection from `from`; resolves once connected (or failed: then null). */
function open(port: number, from: string): Promise<net.Socket | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(socket))
    socket.on('error', () => {
      socket.destroy()
      resolve(null)
    })
  })
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1]!

describe.skipIf(!engine)(`vault proxy serve under floods, in 64 MiB (${unavailableReason('engine')})`, () => {
  let serve: ChildProcess
  let port: number
  let cgroup: ReturnType<typeof makeCgroup>
  let log = ''
  let exit: { code: number | null; signal: string | null } | undefined

  beforeAll(async () => {
    const pad = 'x'.repeat(900_000)
    const created = await engineRequest('POST', `/v1.41/containers/create?name=${bigContainer}`, {
      Image: engine!.busyboxImage,
      Cmd: ['true'],
      Env: [`SECRET=floods-canary-${suffix}`],
      Labels: { pad },
      HostConfig: { NetworkMode: 'none' },
    })
    expect(created).toBe(201)
    cgroup = makeCgroup()
    port = await freePort()
    // The shell joins the cgroup, then becomes the CLI: every process of the proxy runs inside it.
    serve = spawn(
      'sh',
      ['-c', `echo $$ > ${cgroup.procs} && exec "$0" "$@"`, process.execPath, runJs, 'proxy', 'serve'],
      {
        env: {
          PATH: process.env.PATH,
          PROXY_BACKEND_ADDR: `unix://${engine!.socket}`,
          PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
          PROXY_LOG_LEVEL: '6',
          PROXY_PRESET: 'monitoring',
          PROXY_REDACT_ENV: 'on',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    serve.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-20_000)))
    serve.on('exit', (code, signal) => (exit = { code, signal }))
    for (let i = 0; i < 100 && (await ordinary(port)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100))
  }, 60_000)

  afterAll(async () => {
    if (!exit) {
      serve.kill('SIGTERM')
      await new Promise((resolve) => serve.once('exit', resolve))
    }
    console.log(
      `proxy cgroup: peak ${(cgroup.peakBytes() / 2 ** 20).toFixed(1)} MiB of 64, OOM kills ${cgroup.oomKills()}`,
    )
    cgroup.remove()
    await engineRequest('DELETE', `/v1.41/containers/${bigContainer}?force=1`)
  })

  /**
   * Puts `flood` in place, then has an ordinary client ask 200 times while it holds; checks the proxy
   * lives (no OOM kill) and answers every time, p99 at most 100 ms.
   */
  async function underFlood(name: string, flood: () => Promise<() => void>, addedP99Ms = 100): Promise<void> {
    const release = await flood()
    // The flood's first burst is over (the engine itself answered a list in 0.8 s while it served 100
    // clients' 900 KB inspects): measure while the flood holds what it holds.
    const settling = performance.now()
    for (let i = 0; i < 100 && (await ordinary(port)).ms > 50; i++)
      await new Promise((resolve) => setTimeout(resolve, 100))
    const settleMs = performance.now() - settling
    const times: number[] = []
    const added: number[] = []
    const statuses: number[] = []
    try {
      for (let i = 0; i < 200; i++) {
        const [{ status, ms }, engineMs] = await Promise.all([ordinary(port), direct()])
        statuses.push(status)
        times.push(ms)
        added.push(Math.max(0, ms - engineMs))
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    } finally {
      release()
    }
    console.log(
      `${name}: settled after ${settleMs.toFixed(0)} ms, ${statuses.length} ordinary requests, p99 ${p99(times).toFixed(1)} ms (added to the engine's own: ${p99(added).toFixed(1)} ms), cgroup peak ${(cgroup.peakBytes() / 2 ** 20).toFixed(1)} MiB`,
    )
    expect(exit, log.slice(-2_000)).toBeUndefined()
    expect(cgroup.oomKills()).toBe(0)
    expect(
      statuses.filter((status) => status !== 200),
      JSON.stringify(statuses),
    ).toEqual([])
    // The proxy's own share: each answer's time minus the engine's for the same list asked at the same
    // moment by the same client (this machine's load, often 15-20 on 2 cores, slows both alike).
    expect(p99(added)).toBeLessThanOrEqual(addedP99Ms)
  }

  it('1,000 unfinished heads (1 MB tried each: cut at 64 KiB; 60 KB held each)', async () => {
    await underFlood('unfinished heads', async () => {
      const held: net.Socket[] = []
      for (let i = 0; i < 1_000; i++) {
        const socket = await open(port, `127.0.${10 + (i % 20)}.${1 + Math.floor(i / 20)}`)
        if (!socket) continue
        const big = i % 10 === 0
        socket.write(
          `GET /v1.41/containers/json HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(big ? 1_000_000 : 60_000)}`,
        )
        held.push(socket)
      }
      return () => held.forEach((socket) => socket.destroy())
      // 2.8-3.9 ms added (p99) in CI, where this file runs last and alone; 100.6-134.9 ms in older runs
      // on a machine at load 20-25 (one pause while the connections the budget closed go)
    })
  })

  it('long version prefixes (60 KB /v1.1.1…/x paths from 20 sources)', async () => {
    await underFlood('long version prefixes', async () => {
      const path = '/v' + '1.'.repeat(30_000) + '1/x'
      const sockets: net.Socket[] = []
      for (let i = 0; i < 200; i++) {
        const socket = await open(port, `127.0.40.${1 + (i % 20)}`)
        if (!socket) continue
        socket.resume()
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)
        sockets.push(socket)
      }
      return () => sockets.forEach((socket) => socket.destroy())
    })
  })

  it('100 clients that ask for large masked answers and never read them', async () => {
    await underFlood('clients not reading', async () => {
      const sockets: net.Socket[] = []
      for (let i = 0; i < 100; i++) {
        const socket = await open(port, `127.0.50.${1 + i}`)
        if (!socket) continue
        socket.pause()
        socket.write(`GET /v1.41/containers/${bigContainer}/json HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(4))
        sockets.push(socket)
      }
      return () => sockets.forEach((socket) => socket.destroy())
      // 22-25 ms added (p99) in CI, alone; 351-426 ms in older runs on a loaded machine (each 900 KB
      // answer costs the single thread 20-30 ms to parse, mask and serialise)
    })
  })

  it('one source opening 1,024 connections holds its share only', async () => {
    await underFlood('one source, every connection', async () => {
      const sockets: net.Socket[] = []
      for (let i = 0; i < 1_024; i++) {
        const socket = await open(port, '127.0.60.1')
        if (socket) sockets.push(socket)
      }
      return () => sockets.forEach((socket) => socket.destroy())
    })
  })
})
