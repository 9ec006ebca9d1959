/**
 * Benchmark of `vault proxy serve`, in one run, side by side with the direct socket and CetusGuard:
 * the same keep-alive load (1 and 16 connections; GET /_ping and GET /containers/json, a 64 KB list)
 * against a fake engine (bench/lib/fake-engine.ts) on a unix socket, straight and through each proxy on
 * 127.0.0.1 with the same rule. Prints requests per second, p50 and p99 latency, the p50 each proxy
 * adds at one connection, vault's throughput against CetusGuard's at 16, and peak RSS of each proxy.
 * CetusGuard runs when CETUSGUARD_BIN names its binary; otherwise its rows say it was skipped.
 * VAULT_BASELINE=/path/to/another/checkout (built) adds that vault as a row, for before/after figures.
 * Run: npx tsx bench/proxy.ts [seconds-per-case]   (needs `make build`)
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

async function waitFor(options: http.RequestOptions, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      http
        .get({ ...options, path: '/_ping', agent: false }, (res) => {
          res.resume()
          resolve(res.statusCode === 200)
        })
        .on('error', () => resolve(false))
    })
    if (ok) return
    await sleep(100)
  }
  throw new Error(`${what} did not start`)
}

const rule = 'GET %API_PREFIX_CONTAINERS%/json'
const fakeEngine = fileURLToPath(new URL('./lib/fake-engine.ts', import.meta.url))

interface Proxy {
  name: string
  target?: Target
  /** The process that serves requests (for memory), when the proxy runs. */
  servingPid?: () => number | undefined
  process?: ReturnType<typeof spawn>
  skipped?: string
}

async function startVault(socket: string, name = 'vault proxy serve', run = runJs): Promise<Proxy> {
  const port = await freePort()
  const args = [
    'proxy',
    'serve',
    '--backend-addr',
    `unix://${socket}`,
    '--frontend-addr',
    `tcp://127.0.0.1:${port}`,
  ]
  const child = spawn(process.execPath, [run, ...args, '--rules', rule, '--log-level', '3'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const target: Target = { name, options: { host: '127.0.0.1', port } }
  await waitFor(target.options, target.name)
  // One process: `vault proxy serve` replaces itself (process.execve) with the lean server.
  return { name: target.name, target, process: child, servingPid: () => child.pid }
}

async function startCetusGuard(socket: string): Promise<Proxy> {
  const binary = process.env.CETUSGUARD_BIN
  if (!binary) return { name: 'CetusGuard', skipped: 'skipped: set CETUSGUARD_BIN to a cetusguard binary' }
  const port = await freePort()
  const args = ['-backend-addr', `unix://${socket}`, '-frontend-addr', `tcp://127.0.0.1:${port}`]
  const child = spawn(binary, [...args, '-rules', rule, '-log-level', '3'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const target: Target = { name: 'CetusGuard', options: { host: '127.0.0.1', port } }
  await waitFor(target.options, target.name)
  return { name: target.name, target, process: child, servingPid: () => child.pid }
}

async function stop(child: ReturnType<typeof spawn> | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-proxy-'))
  const socket = join(dir, 'engine.sock')
  const engine = spawn(process.execPath, [fakeEngine, socket], { stdio: ['ignore', 'ignore', 'inherit'] })
  const proxies: Proxy[] = []
  try {
    const direct: Target = { name: 'direct unix socket', options: { socketPath: socket } }
    await waitFor(direct.options, 'the fake engine')
    proxies.push(await startCetusGuard(socket), await startVault(socket))
    const baseline = process.env.VAULT_BASELINE
    if (baseline) proxies.push(await startVault(socket, 'vault baseline', join(baseline, 'bin', 'run.js')))
    const samplers = proxies.map((proxy) => {
      const pid = proxy.servingPid?.()
      return pid === undefined ? undefined : { pid, anonymous: sampleAnonymous(pid) }
    })
    const rows: (string | number)[][] = []
    const summary: string[] = []
    for (const [path, label] of [
      ['/_ping', 'GET /_ping'],
      ['/v1.47/containers/json', 'GET /containers/json (64 KB)'],
    ] as const) {
      for (const connections of [1, 16]) {
        const base = await runCase(direct, path, connections)
        rows.push([label, connections, direct.name, Math.round(base.rps), base.p50, base.p99])
        const results = new Map<string, CaseResult>()
        for (const proxy of proxies) {
          if (!proxy.target) {
            rows.push([label, connections, proxy.name, proxy.skipped!, '', ''])
            continue
          }
          const result = await runCase(proxy.target, path, connections)
          results.set(proxy.name, result)
          rows.push([label, connections, proxy.name, Math.round(result.rps), result.p50, result.p99])
        }
        const vault = results.get('vault proxy serve')!
        const cetus = results.get('CetusGuard')
        if (connections === 1) {
          const added = (result: CaseResult) => `${(result.p50 - base.p50).toFixed(0)} µs`
          summary.push(
            `${label}, 1 connection: added p50 vault ${added(vault)}` +
              (cetus ? `, CetusGuard ${added(cetus)} (goal: vault <= CetusGuard)` : ' (CetusGuard skipped)'),
          )
        } else {
          summary.push(
            `${label}, 16 connections: vault ${((vault.rps / base.rps) * 100).toFixed(1)}% of direct` +
              (cetus
                ? `, ${(vault.rps / cetus.rps).toFixed(2)} x CetusGuard (goal >= 1.5)`
                : ' (CetusGuard skipped)'),
          )
        }
      }
    }
    printTable(['request', 'conns', 'target', 'req/s', 'p50 µs', 'p99 µs'], rows)
    console.log('')
    for (const line of summary) console.log(line)
    for (const [index, proxy] of proxies.entries()) {
      const sampler = samplers[index]
      if (!sampler) continue
      sampler.anonymous.stop()
      console.log(
        `${proxy.name} serving process: peak RSS ${statusMb(sampler.pid, 'VmHWM').toFixed(1)} MB, ` +
          `peak private (anonymous) ${sampler.anonymous.peak.toFixed(1)} MB`,
      )
    }
  } finally {
    for (const proxy of proxies) await stop(proxy.process)
    await stop(engine)
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
