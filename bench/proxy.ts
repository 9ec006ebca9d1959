/**
 * Benchmark of `vault proxy serve` against the engine socket, in one run: the same keep-alive load
 * (1 and 16 connections; GET /_ping and GET /containers/json) straight to a private dockerd's unix
 * socket and through the proxy on 127.0.0.1. Prints requests per second, p50 and p99 latency, the
 * added p50 at one connection, the throughput ratio at 16, and the serving process's peak RSS.
 * Run: npx tsx bench/proxy.ts [seconds-per-case]   (needs `make build`, root, dockerd)
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { startEngine, stopEngine } from '../test/harness/engine.js'
import { freePort } from '../test/harness/ports.js'
import { printTable, quantile } from './lib/timing.js'

const secondsPerCase = Number(process.argv[2] ?? 4)
const maxRequestsPerCase = 400_000
const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))

interface Target {
  name: string
  options: http.RequestOptions
}

interface CaseResult {
  rps: number
  p50: number
  p99: number
}

async function runCase(target: Target, path: string, connections: number): Promise<CaseResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections })
  const latencies: number[] = []
  const deadline = performance.now() + secondsPerCase * 1000
  let errors = 0
  const once = () =>
    new Promise<void>((resolve) => {
      const start = process.hrtime.bigint()
      const req = http.request({ ...target.options, path, agent }, (res) => {
        res.resume()
        res.on('end', () => {
          if (res.statusCode !== 200) errors++
          latencies.push(Number(process.hrtime.bigint() - start) / 1000)
          resolve()
        })
      })
      req.on('error', () => {
        errors++
        resolve()
      })
      req.end()
    })
  const worker = async () => {
    while (performance.now() < deadline && latencies.length < maxRequestsPerCase) await once()
  }
  for (let i = 0; i < 200; i++) await once()
  latencies.length = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: connections }, worker))
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  if (errors > 0) throw new Error(`${errors} failed requests against ${target.name}${path}`)
  return { rps: latencies.length / elapsed, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) }
}

function statusMb(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024
}

/** Samples the private (anonymous) resident memory of a process; the peak is kept. */
function sampleAnonymous(pid: number): { peak: number; stop: () => void } {
  const sample = { peak: 0, stop: () => clearInterval(timer) }
  const timer = setInterval(() => (sample.peak = Math.max(sample.peak, statusMb(pid, 'RssAnon'))), 50)
  return sample
}

async function waitForProxy(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      http
        .get({ host: '127.0.0.1', port, path: '/_ping', agent: false }, (res) => {
          res.resume()
          resolve(res.statusCode === 200)
        })
        .on('error', () => resolve(false))
    })
    if (ok) return
    await sleep(100)
  }
  throw new Error('the proxy did not start')
}

async function main(): Promise<void> {
  const engine = await startEngine()
  const port = await freePort()
  const proxy = spawn(
    process.execPath,
    [
      runJs,
      'proxy',
      'serve',
      '--backend-addr',
      `unix://${engine.socket}`,
      '--frontend-addr',
      `tcp://127.0.0.1:${port}`,
      '--log-level',
      '3',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  )
  try {
    await waitForProxy(port)
    const server = proxy.pid!
    const anonymous = sampleAnonymous(server)
    const direct: Target = { name: 'direct unix socket', options: { socketPath: engine.socket } }
    const viaProxy: Target = { name: 'vault proxy serve', options: { host: '127.0.0.1', port } }
    const rows: (string | number)[][] = []
    const summary: string[] = []
    for (const path of ['/_ping', '/containers/json']) {
      for (const connections of [1, 16]) {
        const a = await runCase(direct, path, connections)
        const b = await runCase(viaProxy, path, connections)
        rows.push([`GET ${path}`, connections, direct.name, Math.round(a.rps), a.p50, a.p99])
        rows.push([`GET ${path}`, connections, viaProxy.name, Math.round(b.rps), b.p50, b.p99])
        if (connections === 1)
          summary.push(
            `GET ${path}, 1 connection: added p50 ${(b.p50 - a.p50).toFixed(0)} µs (target <= 150)`,
          )
        else
          summary.push(
            `GET ${path}, 16 connections: ${((b.rps / a.rps) * 100).toFixed(1)}% of direct throughput (target >= 30%)`,
          )
      }
    }
    printTable(['request', 'conns', 'target', 'req/s', 'p50 µs', 'p99 µs'], rows)
    console.log('')
    for (const line of summary) console.log(line)
    anonymous.stop()
    console.log(
      `proxy serving process: peak RSS ${statusMb(server, 'VmHWM').toFixed(1)} MB (target <= 56), of which ` +
        `${statusMb(server, 'RssFile').toFixed(1)} MB is the node binary's shared file pages; ` +
        `peak private (anonymous) ${anonymous.peak.toFixed(1)} MB. ` +
        `One process: \`vault proxy serve\` replaced itself (process.execve) with the lean server.`,
    )
  } finally {
    proxy.kill('SIGTERM')
    await new Promise((resolve) => proxy.once('exit', resolve))
    await stopEngine(engine)
  }
}

await main()
