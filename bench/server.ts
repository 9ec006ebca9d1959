/**
 * Benchmark of the vault server: requests per second, p50 and p99 for listing 100 secrets (with values)
 * and for PATCH, with 1 and 16 concurrent clients, on SQLite (durable commits: WAL + synchronous=FULL)
 * and on PostgreSQL (a private cluster, when available). The server runs as its own process; the load
 * comes from this one over keep-alive HTTP to 127.0.0.1. Baseline in the same run: a bare node:http
 * server answering a fixed JSON body of the same size (the transport's ceiling on this machine).
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
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import pg from 'pg'
import { postgresUnavailableReason, startPostgres, stopPostgres } from '../test/harness/postgres.js'
import { spawnVaultProcess, startVaultServer } from '../test/helpers/vault-server.js'
import { median, printTable, quantile } from './lib/timing.js'

const cellSeconds = 3
const cellRequests = 5000
const secretCount = 100
const baseRoot = process.env.BENCH_BASE_REPO
/** Replica rows on PostgreSQL: BENCH_REPLICAS, e.g. `2,3` (default 2). */
const replicaCounts = (process.env.BENCH_REPLICAS ?? '2').split(',').map(Number)
/** The engines measured: BENCH_ENGINES, e.g. `postgres` (default both). */
const engines = new Set((process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(','))

interface Target {
  base: string
  token: string
}

function send(agent: Agent, target: Target, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, target.base)
    const outgoing = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: {
          authorization: `Bearer ${target.token}`,
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
        },
      },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      },
    )
    outgoing.on('error', reject)
    outgoing.end(body)
  })
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

async function measure(
  target: Target,
  clients: number,
  operation: (agent: Agent, client: number, index: number) => Promise<number>,
  serverPids: (number | undefined)[] = [],
) {
  const agent = new Agent({ keepAlive: true, maxSockets: clients })
  const serverCpu = (): number => serverPids.reduce<number>((sum, pid) => sum + processCpuSeconds(pid), 0)
  const serverCpuBefore = serverCpu()
  const databaseCpuBefore = databaseCpu?.()
  const ownCpuBefore = process.cpuUsage()
  const latencies: number[] = []
  const deadline = performance.now() + cellSeconds * 1000
  let issued = 0
  let failures = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < deadline && issued < cellRequests) {
        const index = issued++
        const began = performance.now()
        const status = await operation(agent, client, index)
        latencies.push(performance.now() - began)
        if (status >= 300) failures++
      }
    }),
  )
  const seconds = (performance.now() - start) / 1000
  const ownCpu = process.cpuUsage(ownCpuBefore)
  const serverSeconds = serverCpu() - serverCpuBefore
  const databaseSeconds = databaseCpuBefore === undefined ? Number.NaN : databaseCpu!() - databaseCpuBefore
  agent.destroy()
  if (failures > 0) throw new Error(`${failures} requests failed`)
  const perRequest = (cpuSeconds: number) =>
    Number.isNaN(cpuSeconds) ? '-' : Math.round((cpuSeconds * 1e6) / latencies.length)
  return {
    rps: latencies.length / seconds,
    p50: median(latencies),
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
    const targets = servers.map((server) => ({ base: server.url, token }))
    const pids = servers.map((server) => server.child.pid)
    for (const clients of replicas > 1 ? [16] : [1, 16]) {
      const list = await measure(
        targets[0]!,
        clients,
        (agent, client) => send(agent, targets[client % replicas]!, 'GET', '/api/v1/secrets?environment=dev'),
        pids,
      )
      rows.push([engine, 'list 100 secrets', clients, ...cells(list)])
      const patch = await measure(
        targets[0]!,
        clients,
        (agent, client, index) =>
          send(
            agent,
            targets[client % replicas]!,
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
async function benchEngine(engine: string, freshDbUrl: () => Promise<string | undefined>, replicas: boolean) {
  const runs: { label: string; root?: string; replicas?: number }[] = [
    ...(baseRoot ? [{ label: `${engine} (base)`, root: baseRoot }] : []),
    { label: engine },
    ...(replicas
      ? replicaCounts.map((count) => ({ label: `${engine}, ${count} replicas`, replicas: count }))
      : []),
  ]
  for (const run of runs) {
    const seeded = await seedVault(await freshDbUrl())
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
  const target = { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 'none' }
  for (const clients of [1, 16]) {
    const result = await measure(target, clients, (agent) => send(agent, target, 'GET', '/'))
    rows.push(['baseline: bare node:http, same body', 'list', clients, ...cells(result)])
  }
  server.close()
}

const loadAtStart = loadavg()
await benchBaseline()
if (engines.has('sqlite')) await benchEngine('sqlite (synchronous=FULL)', async () => undefined, false)
const pgReason = engines.has('postgres') ? postgresUnavailableReason() : 'not in BENCH_ENGINES'
if (pgReason) {
  process.stderr.write(`PostgreSQL skipped: ${pgReason}\n`)
} else {
  const cluster = await startPostgres()
  const postmaster = Number(readFileSync(`${cluster.dir}/data/postmaster.pid`, 'utf8').split('\n')[0])
  databaseCpu = () => clusterCpuSeconds(postmaster)
  try {
    let databases = 0
    const freshDatabase = async () => {
      const name = `vault_server_bench_${++databases}`
      const admin = new pg.Client({ connectionString: cluster.url })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      await admin.end()
      return cluster.url.replace(/\/postgres$/, `/${name}`)
    }
    await benchEngine('postgres', freshDatabase, true)
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
