/**
 * Benchmark of `vault proxy serve`, in one run, side by side with the direct socket and CetusGuard:
 * the same keep-alive load (1 and 16 connections; GET /_ping and GET /containers/json, a 64 KB list)
 * against a fake engine on a unix socket, both from bench/lib: load.go and fake-engine.go when Go is
 * installed (as the figures were measured), else load.ts and fake-engine.ts (BENCH_HARNESS=go|node
 * chooses), straight and through each proxy on 127.0.0.1 with the same rule. Prints requests per second,
 * p50 and p99 latency, the CPU time each proxy's process spent per request (the figure that the machine's
 * other load disturbs least), the p50 each proxy adds at one connection, vault's throughput against
 * CetusGuard's at 16, peak RSS of each proxy, the load average, and the guard's CPU per create
 * (bench/proxy-guard.ts); each goal of issue 34 section 7 is printed with whether it holds.
 * CetusGuard runs when CETUSGUARD_BIN names its binary; otherwise its rows say it was skipped.
 * A Node byte relay (bench/lib/byte-relay.ts: bytes piped both ways, nothing parsed) runs beside them as
 * the floor of any proxy written in Node; its ratio to CetusGuard at 16 connections is printed too.
 * VAULT_BASELINE=/path/to/another/checkout (built) adds that vault as a row (named by the directory), for
 * before/after figures; several, separated by commas, add a row each.
 * Run: npx tsx bench/proxy.ts [seconds-per-case]   (needs `make build`)
 */
import { spawn, type StdioOptions } from 'node:child_process'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { freePort } from '../test/harness/ports.js'
import { containerList } from './lib/container-list.js'
import { buildGo, goInstalled, runGoLoad } from './lib/go-harness.js'
import { guardCost, guardGoalLine } from './proxy-guard.js'
import { proxyNodeFlags } from '../src/proxy/launch.js'
import { httpRequest, runLoad, type Endpoint, type LoadOptions, type LoadResult } from './lib/load.js'
import { printTable, quantile } from './lib/timing.js'

const secondsPerCase = Number(process.argv[2] ?? 4)
const maxRequestsPerCase = 400_000
const slicesPerCase = 4
const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))

interface Target {
  name: string
  options: http.RequestOptions
  endpoint: Endpoint
}

interface CaseResult {
  rps: number
  p50: number
  p99: number
  /** CPU time (user + system, all threads) the serving process spent per request, µs. */
  cpuPerRequest?: number
  /** CPU time per request of the fake engine and of this load generator together, µs. */
  harnessCpuPerRequest: number
}

const clockTicksPerSecond = 100

/** Issue 34, section 7: vault's throughput at 16 connections at least this many times CetusGuard's. */
const throughputGoal = 1.0

/** How a goal came out, for the summary lines. */
const verdict = (holds: boolean) => (holds ? 'goal holds' : 'goal NOT met')

/** CPU time (user + system) of a process so far, in µs (/proc/PID/stat, 10 ms resolution). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicksPerSecond
}

/** A target under load, and the process whose CPU time is counted (none for the direct socket). */
interface Measured {
  target: Target
  pid?: number
}

/**
 * Runs one case against every target, interleaved: `slicesPerCase` rounds, each giving every target
 * an equal slice of the case's time in turn (each round starting with the next target), so that all of
 * them see the same background load.
 */
async function runCase(
  harness: Harness,
  measured: Measured[],
  enginePid: number,
  path: string,
  connections: number,
): Promise<CaseResult[]> {
  const totals = measured.map(() => ({ latencies: [] as number[], seconds: 0, cpu: 0, harnessCpu: 0 }))
  const ownCpu = () => {
    const own = process.cpuUsage()
    return own.user + own.system
  }
  for (const { target } of measured) {
    const warmUp = await harness.load({
      endpoint: target.endpoint,
      request: httpRequest({ path }),
      connections: 1,
      durationMs: 1_000,
      maxRequests: 200,
    })
    if (warmUp.errors > 0) throw new Error(`failed requests against ${target.name}${path}`)
  }
  for (let slice = 0; slice < slicesPerCase; slice++) {
    // Each round starts one target later, so that no target always runs right after the same one.
    for (let turn = 0; turn < measured.length; turn++) {
      const index = (slice + turn) % measured.length
      const { target, pid } = measured[index]!
      const total = totals[index]!
      const cpuBefore = pid === undefined ? 0 : cpuMicros(pid)
      const engineBefore = cpuMicros(enginePid)
      const ownBefore = ownCpu()
      const result = await harness.load({
        endpoint: target.endpoint,
        request: httpRequest({ path }),
        connections,
        durationMs: (secondsPerCase * 1000) / slicesPerCase,
        maxRequests: maxRequestsPerCase / slicesPerCase,
      })
      if (result.errors > 0) throw new Error(`${result.errors} failed requests against ${target.name}${path}`)
      if (pid !== undefined) total.cpu += cpuMicros(pid) - cpuBefore
      total.harnessCpu += cpuMicros(enginePid) - engineBefore + (result.cpuMicros ?? ownCpu() - ownBefore)
      total.latencies.push(...result.latencies)
      total.seconds += result.elapsedSeconds
    }
  }
  return totals.map(({ latencies, seconds, cpu, harnessCpu }, index) => ({
    rps: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    cpuPerRequest: measured[index]!.pid === undefined ? undefined : cpu / latencies.length,
    harnessCpuPerRequest: harnessCpu / latencies.length,
  }))
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
const fakeEngineNode = fileURLToPath(new URL('./lib/fake-engine.ts', import.meta.url))
const byteRelayName = 'Node byte relay (floor)'
const byteRelay = fileURLToPath(new URL('./lib/byte-relay.ts', import.meta.url))

/** The fake engine and the load generator; `load` reports its own CPU time when it is not this process. */
interface Harness {
  name: string
  startEngine(socket: string): ReturnType<typeof spawn>
  load(options: LoadOptions): Promise<LoadResult & { cpuMicros?: number }>
}

/**
 * The Go harness (fake-engine.go and load.go, as the issue's own figures were measured; they leave more
 * of the machine to the proxies) when `go` is installed, else the Node one; BENCH_HARNESS=go|node chooses.
 */
function chooseHarness(dir: string): Harness {
  const kind = process.env.BENCH_HARNESS ?? (goInstalled() ? 'go' : 'node')
  const stdio: StdioOptions = ['ignore', 'ignore', 'inherit']
  if (kind === 'node') {
    return {
      name: 'Node (bench/lib/fake-engine.ts, bench/lib/load.ts)',
      startEngine: (socket) =>
        spawn(process.execPath, [...process.execArgv, fakeEngineNode, socket], { stdio }),
      load: runLoad,
    }
  }
  if (kind !== 'go') throw new Error(`BENCH_HARNESS is go or node, not ${kind}`)
  const listFile = join(dir, 'list.json')
  writeFileSync(listFile, containerList(64 * 1024))
  const engine = buildGo(dir, 'fake-engine')
  const load = buildGo(dir, 'load')
  return {
    name: 'Go (bench/lib/fake-engine.go, bench/lib/load.go)',
    startEngine: (socket) => spawn(engine, [socket, listFile], { stdio }),
    load: (options) => runGoLoad(load, dir, options),
  }
}

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
  const child = spawn(process.execPath, [run, ...args, '--rules', rule, '--log-level', '6'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const target: Target = { name, options: { host: '127.0.0.1', port }, endpoint: { host: '127.0.0.1', port } }
  await waitFor(target.options, target.name)
  // One process: `vault proxy serve` replaces itself (process.execve) with the lean server.
  return { name: target.name, target, process: child, servingPid: () => child.pid }
}

/** bench/lib/byte-relay.ts: Node piping bytes with no parsing, the floor of any proxy written in Node. */
async function startByteRelay(socket: string): Promise<Proxy> {
  const port = await freePort()
  const child = spawn(process.execPath, [byteRelay, String(port), socket], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const name = byteRelayName
  const target: Target = { name, options: { host: '127.0.0.1', port }, endpoint: { host: '127.0.0.1', port } }
  await waitFor(target.options, name)
  return { name, target, process: child, servingPid: () => child.pid }
}

async function startCetusGuard(socket: string): Promise<Proxy> {
  const binary = process.env.CETUSGUARD_BIN
  if (!binary) return { name: 'CetusGuard', skipped: 'skipped: set CETUSGUARD_BIN to a cetusguard binary' }
  const port = await freePort()
  const args = ['-backend-addr', `unix://${socket}`, '-frontend-addr', `tcp://127.0.0.1:${port}`]
  const child = spawn(binary, [...args, '-rules', rule, '-log-level', '3'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const target: Target = {
    name: 'CetusGuard',
    options: { host: '127.0.0.1', port },
    endpoint: { host: '127.0.0.1', port },
  }
  await waitFor(target.options, target.name)
  return { name: target.name, target, process: child, servingPid: () => child.pid }
}

/**
 * What the CPU time says about the 16-connection ratio when the machine's cores are the limit: each
 * request then costs the proxy's CPU plus the fake engine's and the load generator's, so throughput
 * goes as 1 / (sum), and the goal's ratio to CetusGuard needs vault's own CPU per request below a bound.
 */
function cpuBound(vault: CaseResult, cetus: CaseResult): string {
  const total = (result: CaseResult) => result.cpuPerRequest! + result.harnessCpuPerRequest
  const needed = total(cetus) / throughputGoal - vault.harnessCpuPerRequest
  return (
    `CPU-bound prediction: ${(total(cetus) / total(vault)).toFixed(2)} x (engine + load generator + proxy ` +
    `per request: vault ${total(vault).toFixed(0)} µs, CetusGuard ${total(cetus).toFixed(0)} µs); ` +
    `${throughputGoal.toFixed(1)} x needs vault at most ${needed.toFixed(0)} µs per request`
  )
}

async function stop(child: ReturnType<typeof spawn> | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-proxy-'))
  const socket = join(dir, 'engine.sock')
  const harness = chooseHarness(dir)
  const engine = harness.startEngine(socket)
  const proxies: Proxy[] = []
  try {
    const direct: Target = {
      name: 'direct unix socket',
      options: { socketPath: socket },
      endpoint: { socketPath: socket },
    }
    await waitFor(direct.options, 'the fake engine')
    proxies.push(await startCetusGuard(socket), await startVault(socket), await startByteRelay(socket))
    for (const baseline of (process.env.VAULT_BASELINE ?? '').split(',').filter(Boolean))
      proxies.push(await startVault(socket, `vault ${basename(baseline)}`, join(baseline, 'bin', 'run.js')))
    const samplers = proxies.map((proxy) => {
      const pid = proxy.servingPid?.()
      return pid === undefined ? undefined : { pid, anonymous: sampleAnonymous(pid) }
    })
    const rows: (string | number)[][] = []
    const summary: string[] = []
    const loadBefore = loadavg()
    for (const [path, label] of [
      ['/_ping', 'GET /_ping'],
      ['/v1.47/containers/json', 'GET /containers/json (64 KB)'],
    ] as const) {
      for (const connections of [1, 16]) {
        const running = proxies.filter((proxy) => proxy.target)
        const [base, ...measuredProxies] = await runCase(
          harness,
          [
            { target: direct },
            ...running.map((proxy) => ({ target: proxy.target!, pid: proxy.servingPid?.() })),
          ],
          engine.pid!,
          path,
          connections,
        )
        const harnessCpu = (result: CaseResult) => Math.round(result.harnessCpuPerRequest)
        rows.push([
          label,
          connections,
          direct.name,
          Math.round(base!.rps),
          base!.p50,
          base!.p99,
          '',
          harnessCpu(base!),
        ])
        const results = new Map<string, CaseResult>()
        running.forEach((proxy, index) => results.set(proxy.name, measuredProxies[index]!))
        for (const proxy of proxies) {
          const result = results.get(proxy.name)
          if (!result) {
            rows.push([label, connections, proxy.name, proxy.skipped!, '', '', '', ''])
            continue
          }
          const cpu = result.cpuPerRequest === undefined ? '' : Math.round(result.cpuPerRequest)
          rows.push([
            label,
            connections,
            proxy.name,
            Math.round(result.rps),
            result.p50,
            result.p99,
            cpu,
            harnessCpu(result),
          ])
        }
        const vault = results.get('vault proxy serve')!
        const cpu = (result: CaseResult) => `${result.cpuPerRequest!.toFixed(0)} µs`
        const cetus = results.get('CetusGuard')
        if (connections === 1) {
          const added = (result: CaseResult) => `${(result.p50 - base!.p50).toFixed(0)} µs`
          summary.push(
            `${label}, 1 connection: added p50 vault ${added(vault)}` +
              (cetus
                ? `, CetusGuard ${added(cetus)} (goal: vault <= CetusGuard: ${verdict(vault.p50 <= cetus.p50)})`
                : ' (CetusGuard skipped)'),
          )
        } else {
          summary.push(
            `${label}, 16 connections: vault ${((vault.rps / base!.rps) * 100).toFixed(1)}% of direct` +
              (cetus
                ? `, ${(vault.rps / cetus.rps).toFixed(2)} x CetusGuard (goal >= ${throughputGoal.toFixed(1)}: ` +
                  `${verdict(vault.rps >= throughputGoal * cetus.rps)}); CPU per request ` +
                  `vault ${cpu(vault)}, CetusGuard ${cpu(cetus)}`
                : ' (CetusGuard skipped)'),
          )
          if (cetus) summary.push(`  ${cpuBound(vault, cetus)}`)
          const floor = results.get(byteRelayName)
          if (cetus && floor)
            summary.push(
              `  floor of a Node proxy (byte relay, no parsing): ${(floor.rps / cetus.rps).toFixed(2)} x ` +
                `CetusGuard, CPU per request ${cpu(floor)}`,
            )
        }
      }
    }
    printTable(
      ['request', 'conns', 'target', 'req/s', 'p50 µs', 'p99 µs', 'CPU µs/req', 'engine+load CPU µs/req'],
      rows,
    )
    console.log('')
    for (const line of summary) console.log(line)
    const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ')
    console.log(guardGoalLine(guardCost(proxyNodeFlags, 20_000)))
    console.log(`harness (fake engine, load generator): ${harness.name}`)
    console.log(`load average (1, 5, 15 min) before ${load(loadBefore)}, after ${load(loadavg())}`)
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
