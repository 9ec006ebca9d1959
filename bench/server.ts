/**
 * Benchmark of the vault server: requests per second, p50 and p99 for listing 100 secrets (with values)
 * and for PATCH, with 1 and 16 concurrent clients, on SQLite (durable commits: WAL + synchronous=FULL)
 * and on PostgreSQL (a private cluster, when available). The server runs as its own process; the load
 * comes from this one over keep-alive HTTP to 127.0.0.1, through the lean load generator that
 * bench/proxy.ts uses (bench/lib/load.ts: raw sockets and Node's llhttp, a fraction of node:http's
 * client CPU, which on 2 cores competes with the server and the database for the same CPUs).
 * Baseline in the same run: a bare node:http server answering a fixed JSON body of the same size
 * (the transport's ceiling on this machine).
 * Each cell also shows the CPU time per request of the server process and of this load generator
 * (from /proc and process.cpuUsage; for the baseline both sides share this process), which says which
 * side is the limit on a 2-core machine. Each cell is bounded to 3 seconds and 5,000 requests.
 * Every measured server (or set of replicas) starts on a database of its own, seeded the same way.
 * PostgreSQL also runs as two replicas (two server processes on one database, the 16 clients split
 * between them; server CPU is the sum of both; BENCH_REPLICAS=2,3 adds three). BENCH_BASE_REPO names another checkout (e.g. an export
 * of main with this one's node_modules linked in); its server is then measured in the same run, on
 * identically seeded databases, as the `(base)` rows: the before/after of a change.
 * Targets (issue 20, PostgreSQL at 16 clients): list >= 2,000 req/s, PATCH >= 1,000 req/s, server CPU
 * per list <= 400 µs; SQLite not below its base. On PostgreSQL each cell also shows the CPU time per
 * request of the whole cluster (postmaster and backends), which with the server's and the load
 * generator's says whether the 2 cores are the limit. BENCH_ENGINES=postgres (or sqlite) measures one.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import pg from 'pg'
import { postgresUnavailableReason, startPostgres, stopPostgres } from '../test/harness/postgres.js'
import { spawnVaultProcess, startVaultServer } from '../test/helpers/vault-server.js'
import { httpRequest, runLoad, type Endpoint } from './lib/load.js'
import { printTable, quantile } from './lib/timing.js'

const cellSeconds = 3
const cellRequests = 5000
const secretCount = 100
const baseRoot = process.env.BENCH_BASE_REPO
/**
 * PostgreSQL settings of the `(base)` rows' database, BENCH_BASE_PG_SETTINGS, e.g.
 * `commit_delay=100,commit_siblings=2` (ALTER DATABASE ... SET): a setting measured against the
 * cluster's defaults in the same run. Without BENCH_BASE_REPO the base is then this checkout.
 */
const baseSettings = (process.env.BENCH_BASE_PG_SETTINGS ?? '')
  .split(',')
  .filter(Boolean)
  .map((pair) => {
    const [name, value] = pair.split('=')
    if (!/^[a-z_]+$/.test(name ?? '') || !/^[\w.]+$/.test(value ?? '')) {
      throw new Error(`BENCH_BASE_PG_SETTINGS: "${pair}" is not name=value`)
    }
    return { name: name!, value: value! }
  })
/** Replica rows on PostgreSQL: BENCH_REPLICAS, e.g. `2,3` (default 2). */
const replicaCounts = (process.env.BENCH_REPLICAS ?? '2').split(',').map(Number)
/** The engines measured: BENCH_ENGINES, e.g. `postgres` (default both). */
const engines = new Set((process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(','))

interface Target {
  endpoint: Endpoint
  token: string
}

/** Where a server listening at `url` (http://127.0.0.1:PORT) is reached. */
function endpointOf(url: string): Endpoint {
  const parsed = new URL(url)
  return { host: parsed.hostname, port: Number(parsed.port) }
}

/** The bytes of a request to `target`, authorised by its token. */
function vaultRequest(target: Target, method: string, path: string, body?: string): Buffer {
  const headers: Record<string, string> = { authorization: `Bearer ${target.token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  return httpRequest({ method, path, headers, body })
}

/** CPU seconds (user + system) used so far by process `pid` (Linux /proc, 100 ticks per second). */
function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * CPU seconds used so far by the PostgreSQL cluster whose postmaster is `pid`: the postmaster with its
 * reaped children, plus every live child (the backends of the servers' pools among them).
 */
function clusterCpuSeconds(pid: number): number {
  const stat = (of: number | string) => readFileSync(`/proc/${of}/stat`, 'utf8').split(') ')[1]!.split(' ')
  const own = stat(pid)
  let seconds = [11, 12, 13, 14].reduce((sum, field) => sum + Number(own[field]), 0) / 100
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const fields = stat(entry)
      if (Number(fields[1]) === pid) seconds += (Number(fields[11]) + Number(fields[12])) / 100
    } catch {
      // the process ended between the listing and the read
    }
  }
  return seconds
}

/** The database's CPU meter of the cell being measured (PostgreSQL only). */
let databaseCpu: (() => number) | undefined

/**
 * One cell: `clients` keep-alive connections (the lean load generator of bench/lib/load.ts), split
 * evenly over `targets` (client n talks to target n mod targets.length); `request(target, n, index)`
 * gives the bytes client n sends as its target's request number `index`.
 */
async function measure(
  targets: Target[],
  clients: number,
  request: (target: Target, client: number, index: number) => Buffer,
  serverPids: (number | undefined)[] = [],
) {
  const serverCpu = (): number => serverPids.reduce<number>((sum, pid) => sum + processCpuSeconds(pid), 0)
  const serverCpuBefore = serverCpu()
  const databaseCpuBefore = databaseCpu?.()
  const ownCpuBefore = process.cpuUsage()
  const started = performance.now()
  const results = await Promise.all(
    targets.map((target, offset) =>
      runLoad({
        endpoint: target.endpoint,
        connections: clients / targets.length,
        request: (connection, index) => request(target, connection * targets.length + offset, index),
        durationMs: cellSeconds * 1000,
        maxRequests: cellRequests / targets.length,
      }),
    ),
  )
  const seconds = (performance.now() - started) / 1000
  const ownCpu = process.cpuUsage(ownCpuBefore)
  const serverSeconds = serverCpu() - serverCpuBefore
  const databaseSeconds = databaseCpuBefore === undefined ? Number.NaN : databaseCpu!() - databaseCpuBefore
  const failures = results.reduce((sum, result) => sum + result.errors, 0)
  if (failures > 0) throw new Error(`${failures} requests failed`)
  const latencies = results.flatMap((result) => result.latencies.map((micros) => micros / 1000))
  const perRequest = (cpuSeconds: number) =>
    Number.isNaN(cpuSeconds) ? '-' : Math.round((cpuSeconds * 1e6) / latencies.length)
  return {
    rps: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    serverCpu: serverPids.length === 0 ? '-' : perRequest(serverSeconds),
    clientCpu: perRequest((ownCpu.user + ownCpu.system) / 1e6),
    databaseCpu: perRequest(databaseSeconds),
  }
}

const rows: (string | number)[][] = []

function cells(result: Awaited<ReturnType<typeof measure>>): (string | number)[] {
  return [
    Math.round(result.rps),
    result.p50,
    result.p99,
    result.serverCpu,
    result.databaseCpu,
    result.clientCpu,
  ]
}

/** A vault on `dbUrl` seeded with the secrets the cells read and write. */
async function seedVault(dbUrl: string | undefined) {
  const seeded = await startVaultServer({ dbUrl })
  const token = await seeded.token(seeded.deploymentCredentials)
  for (let i = 0; i < secretCount; i++) {
    const response = await fetch(`${seeded.url}/api/v1/secrets/BENCH_${i}?environment=dev`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: `value-${i}-${'x'.repeat(24)}` }),
    })
    if (response.status !== 201) throw new Error(`seeding failed: HTTP ${response.status}`)
  }
  await seeded.running.close()
  return seeded
}

type Seeded = Awaited<ReturnType<typeof seedVault>>

/**
 * The list and PATCH cells of `replicas` server processes (of `root`, default this checkout) on the
 * seeded database; client n talks to process n mod replicas.
 */
async function benchVault(
  engine: string,
  seeded: Seeded,
  options: { root?: string; replicas?: number } = {},
) {
  const replicas = options.replicas ?? 1
  const servers = await Promise.all(
    Array.from({ length: replicas }, () => spawnVaultProcess({ ...seeded, root: options.root })),
  )
  try {
    const token = await seeded.token(seeded.deploymentCredentials, servers[0]!.url)
    const targets = servers.map((server) => ({ endpoint: endpointOf(server.url), token }))
    const pids = servers.map((server) => server.child.pid)
    for (const clients of replicas > 1 ? [16] : [1, 16]) {
      const listRequests = new Map(
        targets.map((target) => [target, vaultRequest(target, 'GET', '/api/v1/secrets?environment=dev')]),
      )
      const list = await measure(targets, clients, (target) => listRequests.get(target)!, pids)
      rows.push([engine, 'list 100 secrets', clients, ...cells(list)])
      const patch = await measure(
        targets,
        clients,
        (target, client, index) =>
          vaultRequest(
            target,
            'PATCH',
            `/api/v1/secrets/BENCH_${client}?environment=dev`,
            JSON.stringify({ value: `new-${index}` }),
          ),
        pids,
      )
      rows.push([engine, 'PATCH', clients, ...cells(patch)])
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
  }
}

/**
 * The rows of one engine: the base build first (when given), then this one, then its replicas. Each
 * server gets a database of its own, seeded the same way (`freshDbUrl`), so none is measured on a log
 * the one before it has grown.
 */
async function benchEngine(
  engine: string,
  freshDbUrl: (base: boolean) => Promise<string | undefined>,
  options: { replicas: boolean; baseBySettings: boolean },
) {
  const base = baseRoot !== undefined || options.baseBySettings
  const settingsNote = options.baseBySettings
    ? `, ${baseSettings.map((s) => `${s.name}=${s.value}`).join(' ')}`
    : ''
  const runs: { label: string; root?: string; replicas?: number; base?: boolean }[] = [
    ...(base ? [{ label: `${engine} (base${settingsNote})`, root: baseRoot, base: true }] : []),
    { label: engine },
    ...(options.replicas
      ? replicaCounts.map((count) => ({ label: `${engine}, ${count} replicas`, replicas: count }))
      : []),
  ]
  for (const run of runs) {
    const seeded = await seedVault(await freshDbUrl(run.base === true))
    try {
      await benchVault(run.label, seeded, { root: run.root, replicas: run.replicas })
    } finally {
      await seeded.stop()
    }
  }
}

async function benchBaseline() {
  const body = JSON.stringify({
    environment: 'dev',
    secrets: Array.from({ length: secretCount }, (_, i) => ({
      name: `BENCH_${i}`,
      value: `value-${i}-${'x'.repeat(24)}`,
      version: 1,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    })),
  })
  const server = createServer((_request, response) => {
    _request.resume()
    _request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const target = {
    endpoint: endpointOf(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    token: 'none',
  }
  const bytes = httpRequest({ path: '/' })
  for (const clients of [1, 16]) {
    const result = await measure([target], clients, () => bytes)
    rows.push(['baseline: bare node:http, same body', 'list', clients, ...cells(result)])
  }
  server.close()
}

const loadAtStart = loadavg()
await benchBaseline()
if (engines.has('sqlite')) {
  await benchEngine('sqlite (synchronous=FULL)', async () => undefined, {
    replicas: false,
    baseBySettings: false,
  })
}
const pgReason = engines.has('postgres') ? postgresUnavailableReason() : 'not in BENCH_ENGINES'
if (pgReason) {
  process.stderr.write(`PostgreSQL skipped: ${pgReason}\n`)
} else {
  const cluster = await startPostgres()
  const postmaster = Number(readFileSync(`${cluster.dir}/data/postmaster.pid`, 'utf8').split('\n')[0])
  databaseCpu = () => clusterCpuSeconds(postmaster)
  try {
    let databases = 0
    const freshDatabase = async (base: boolean) => {
      const name = `vault_server_bench_${++databases}`
      const admin = new pg.Client({ connectionString: cluster.url })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      const settings = base ? baseSettings : []
      for (const { name: setting, value } of settings) {
        await admin.query(`ALTER DATABASE ${name} SET ${setting} = '${value}'`)
      }
      await admin.end()
      return cluster.url.replace(/\/postgres$/, `/${name}`)
    }
    await benchEngine('postgres', freshDatabase, { replicas: true, baseBySettings: baseSettings.length > 0 })
  } finally {
    await stopPostgres(cluster)
  }
}
printTable(
  [
    'engine',
    'operation',
    'clients',
    'req/s',
    'p50 ms',
    'p99 ms',
    'server cpu µs/req',
    'database cpu µs/req',
    'load-gen cpu µs/req',
  ],
  rows,
)
const load = (figures: number[]) => figures.map((figure) => figure.toFixed(2)).join(' ')
process.stdout.write(
  `load average (1, 5, 15 min): ${load(loadAtStart)} at start, ${load(loadavg())} at end\n`,
)
