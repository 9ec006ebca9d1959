/**
 * Benchmark of the vault server: requests per second, p50 and p99 for listing 100 secrets (with values)
 * and for PATCH, with 1 and 16 concurrent clients, on SQLite (durable commits: WAL + synchronous=FULL)
 * and on PostgreSQL (a private cluster, when available). The server runs as its own process; the load
 * comes from this one over keep-alive HTTP to 127.0.0.1. Baseline in the same run: a bare node:http
 * server answering a fixed JSON body of the same size (the transport's ceiling on this machine).
 * Each cell also shows the CPU time per request of the server process and of this load generator
 * (from /proc and process.cpuUsage; for the baseline both sides share this process), which says which
 * side is the limit on a 2-core machine. Each cell is bounded to 3 seconds and 5,000 requests.
 * Targets: list >= 2,000 req/s, PATCH >= 300 req/s.
 */
import { readFileSync } from 'node:fs'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import { postgresUnavailableReason, startPostgres, stopPostgres } from '../test/harness/postgres.js'
import { spawnVaultProcess, startVaultServer } from '../test/helpers/vault-server.js'
import { median, printTable, quantile } from './lib/timing.js'

const cellSeconds = 3
const cellRequests = 5000
const secretCount = 100

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

async function measure(
  target: Target,
  clients: number,
  operation: (agent: Agent, client: number, index: number) => Promise<number>,
  serverPid?: number,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: clients })
  const serverCpuBefore = processCpuSeconds(serverPid)
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
  const serverCpu = processCpuSeconds(serverPid) - serverCpuBefore
  agent.destroy()
  if (failures > 0) throw new Error(`${failures} requests failed`)
  const perRequest = (cpuSeconds: number) =>
    Number.isNaN(cpuSeconds) ? '-' : Math.round((cpuSeconds * 1e6) / latencies.length)
  return {
    rps: latencies.length / seconds,
    p50: median(latencies),
    p99: quantile(latencies, 0.99),
    serverCpu: perRequest(serverCpu),
    clientCpu: perRequest((ownCpu.user + ownCpu.system) / 1e6),
  }
}

const rows: (string | number)[][] = []

function cells(result: Awaited<ReturnType<typeof measure>>): (string | number)[] {
  return [Math.round(result.rps), result.p50, result.p99, result.serverCpu, result.clientCpu]
}

async function benchVault(engine: string, dbUrl: string | undefined) {
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
  const server = await spawnVaultProcess(seeded)
  try {
    const target = { base: server.url, token: await seeded.token(seeded.deploymentCredentials, server.url) }
    for (const clients of [1, 16]) {
      const list = await measure(
        target,
        clients,
        (agent) => send(agent, target, 'GET', '/api/v1/secrets?environment=dev'),
        server.child.pid,
      )
      rows.push([engine, 'list 100 secrets', clients, ...cells(list)])
      const patch = await measure(
        target,
        clients,
        (agent, client, index) =>
          send(
            agent,
            target,
            'PATCH',
            `/api/v1/secrets/BENCH_${client}?environment=dev`,
            JSON.stringify({ value: `new-${index}` }),
          ),
        server.child.pid,
      )
      rows.push([engine, 'PATCH', clients, ...cells(patch)])
    }
  } finally {
    await server.stop()
    await seeded.stop()
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

await benchBaseline()
await benchVault('sqlite (synchronous=FULL)', undefined)
const pgReason = postgresUnavailableReason()
if (pgReason) {
  process.stderr.write(`PostgreSQL skipped: ${pgReason}\n`)
} else {
  const cluster = await startPostgres()
  try {
    const admin = new pg.Client({ connectionString: cluster.url })
    await admin.connect()
    await admin.query('CREATE DATABASE vault_server_bench')
    await admin.end()
    await benchVault('postgres', cluster.url.replace(/\/postgres$/, '/vault_server_bench'))
  } finally {
    await stopPostgres(cluster)
  }
}
printTable(
  ['engine', 'operation', 'clients', 'req/s', 'p50 ms', 'p99 ms', 'server cpu µs/req', 'load-gen cpu µs/req'],
  rows,
)
