/**
 * The cost of the console's audit view at 1,000, 10,000 and 50,000 audit events (SQLite), before and
 * after issue 33: what the view runs on the event loop on every visit (verifyAuditOp: the audit
 * chain, the row MACs, every secret version against its audit event), with the chain walked whole
 * (before) and from the point this process verified last (after; the first view after a start
 * still walks it whole, shown apart). Between two views, 10 events are appended (the views' own and
 * others'). 95% of the events are reads, 5% writes. Medians of BENCH_RUNS views (default 7).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { appendAudit } from '../src/server/audit/audit.js'
import { hostAdmin } from '../src/server/humans/actor.js'
import { verifyAuditOp } from '../src/server/operations/audit.js'
import { createVaultContext, openVault } from '../src/server/server.js'
import type { SqlDriver } from '../src/server/store/index.js'
import { median, printTable } from './lib/timing.js'

const sizes = (process.env.BENCH_EVENTS ?? '1000,10000,50000').split(',').map(Number)
const runs = Math.min(Number(process.env.BENCH_RUNS ?? 7), 50)
const work = mkdtempSync(join(tmpdir(), 'vault-bench-audit-view-'))

async function appendEvents(driver: SqlDriver, auditKey: Buffer, count: number, from: number): Promise<void> {
  for (let done = 0; done < count;) {
    const batch = Math.min(1000, count - done)
    await driver.transaction(async (tx) => {
      for (let index = 0; index < batch; index++) {
        const n = from + done + index
        const write = n % 20 === 0
        await appendAudit(tx, auditKey, {
          projectId: 'bench',
          environment: 'dev',
          actor: 'identity:bench-deployment',
          action: write ? 'secret.update' : 'secret.read',
          target: `SECRET_${n % 500}`,
          result: 'ok',
          requestId: randomBytes(8).toString('hex'),
          ip: '127.0.0.1',
          detail: write ? `version ${n}` : null,
        })
      }
    })
    done += batch
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint()
  await work()
  return Number(process.hrtime.bigint() - start) / 1e6
}

const rows: (string | number)[][] = []
try {
  for (const size of sizes) {
    const opened = await openVault({
      dbUrl: `sqlite://${join(work, `audit-${size}.db`)}`,
      encryptionKey: randomBytes(32),
    })
    const { driver, keyring } = opened
    const context = createVaultContext({
      driver,
      keyring,
      config: {
        jwtSecret: randomBytes(32),
        trustedProxies: [],
        allowPrivateWebhooks: false,
        requestsPerMinute: 100,
      },
    })
    const call = { vault: context, actor: hostAdmin }
    let appended = 0
    await appendEvents(driver, keyring.auditKey, size, appended)
    appended += size
    const before: number[] = []
    const after: number[] = []
    const first = await timed(() => verifyAuditOp(call, { incremental: true }))
    for (let run = 0; run < runs; run++) {
      await appendEvents(driver, keyring.auditKey, 10, appended)
      appended += 10
      before.push(await timed(() => verifyAuditOp(call)))
      await appendEvents(driver, keyring.auditKey, 10, appended)
      appended += 10
      after.push(await timed(() => verifyAuditOp(call, { incremental: true })))
    }
    const report = await verifyAuditOp(call, { incremental: true })
    if (!report.ok) throw new Error(`the chain of ${size} events does not verify`)
    const full = median(before)
    const incremental = median(after)
    rows.push([size.toLocaleString('en'), full, incremental, first, `${(full / incremental).toFixed(1)}x`])
    await driver.close()
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

console.log(`audit view (verifyAuditOp) on SQLite, median of ${runs} views\n`)
printTable(
  ['events', 'before: full walk ms', 'after: incremental ms', 'first view after a start ms', 'speed-up'],
  rows,
)
