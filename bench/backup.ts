/**
 * Backup and restore cost for 10,000 secret versions on each engine, as a user runs them (`vault
 * backup` / `vault restore`, the built CLI), against each engine's native tool in the same run:
 * SQLite `VACUUM INTO` + gzip, PostgreSQL `pg_dump -Fc` / `pg_restore --clean`. Prints median and p90
 * wall times and the archive sizes. Needs `make build`; PostgreSQL parts need the private cluster
 * binaries (skipped with a note otherwise). Traffic goes to 127.0.0.1 only.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import pg from 'pg'
import { createVaultContext } from '../src/server/server.js'
import { createIdentity, createProject } from '../src/server/identities.js'
import { loadKeyring } from '../src/server/keys/keyring.js'
import { writeSecret } from '../src/server/secrets/secrets.js'
import { openStore } from '../src/server/migrations.js'
import { postgresUnavailableReason, startPostgres, stopPostgres } from '../test/harness/postgres.js'
import { median, printTable, quantile, timeCommand } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const versions = Number(process.env.BENCH_VERSIONS ?? 10_000)
const runs = Math.min(Number(process.env.BENCH_RUNS ?? 3), 10)
const keyHex = randomBytes(32).toString('hex')
const work = mkdtempSync(join(tmpdir(), 'vault-bench-backup-'))
const rows: (string | number)[][] = []

async function seed(dbUrl: string): Promise<void> {
  const driver = await openStore(dbUrl)
  const keyring = await loadKeyring(driver, Buffer.from(keyHex, 'hex'))
  const context = createVaultContext({ driver, keyring, config: { jwtSecret: randomBytes(32) } })
  const projectId = await driver.transaction(async (tx) => {
    const project = await createProject(tx, 'bench', ['dev', 'prod'])
    await createIdentity(tx, keyring, {
      projectId: project.id,
      name: 'bench-deployment',
      permissions: { dev: ['read', 'write'] },
    })
    return project.id
  })
  const scope = { projectId, environment: 'dev', actor: 'bench', requestId: 'bench', ip: '127.0.0.1' }
  for (let start = 0; start < versions; start += 1000) {
    await driver.transaction(async (tx) => {
      for (let i = start; i < Math.min(versions, start + 1000); i++) {
        await writeSecret(
          { context, tx, scope },
          { name: `SECRET_${i % 500}`, value: randomBytes(24).toString('base64url'), mode: 'upsert' },
        )
      }
    })
  }
  await driver.close()
}

function record(engine: string, operation: string, samples: number[], bytes: number | string): void {
  rows.push([engine, operation, samples.length, median(samples), quantile(samples, 0.9), bytes])
}

function timeOnce(work: () => void): number {
  const start = process.hrtime.bigint()
  work()
  return Number(process.hrtime.bigint() - start) / 1e6
}

async function benchEngine(engine: string, dbUrl: string, baseline: () => Promise<void>): Promise<void> {
  await seed(dbUrl)
  const env = { PATH: process.env.PATH, DB_URL: dbUrl, ENCRYPTION_KEY: keyHex }
  const archive = join(work, `${engine}.jsonl.gz`)
  const backup = await timeCommand(process.execPath, [runJs, 'backup', '--output', archive], runs, env)
  record(engine, 'vault backup', backup, statSync(archive).size)
  const restore = await timeCommand(process.execPath, [runJs, 'restore', archive], runs, env)
  record(engine, 'vault restore', restore, '')
  const verify = await timeCommand(process.execPath, [runJs, 'restore', '--verify', archive], runs, env)
  record(engine, 'vault restore --verify', verify, '')
  await baseline()
}

await benchEngine('sqlite', `sqlite://${join(work, 'vault.db')}`, async () => {
  const copy = join(work, 'vacuum-copy.db')
  const samples: number[] = []
  let bytes = 0
  for (let i = 0; i < runs; i++) {
    rmSync(copy, { force: true })
    samples.push(
      timeOnce(() => {
        const db = new DatabaseSync(join(work, 'vault.db'))
        db.exec(`VACUUM INTO '${copy}'`)
        db.close()
        const packed = gzipSync(readFileSync(copy))
        writeFileSync(`${copy}.gz`, packed)
        bytes = packed.length
      }),
    )
  }
  record('sqlite', 'baseline: VACUUM INTO + gzip', samples, bytes)
})

const pgReason = postgresUnavailableReason()
if (pgReason) {
  console.error(`PostgreSQL part skipped: ${pgReason}`)
} else {
  const cluster = await startPostgres()
  try {
    const admin = new pg.Client({ connectionString: cluster.url })
    await admin.connect()
    await admin.query('CREATE DATABASE vault_bench')
    await admin.end()
    const dbUrl = cluster.url.replace(/\/postgres$/, '/vault_bench')
    await benchEngine('postgres', dbUrl, async () => {
      const dump = join(work, 'pg.dump')
      const dumpArgs = ['-Fc', '-f', dump, dbUrl]
      const dumpTimes = await timeCommand('pg_dump', dumpArgs, runs)
      record('postgres', 'baseline: pg_dump -Fc', dumpTimes, statSync(dump).size)
      const restoreArgs = ['--clean', '--if-exists', '--single-transaction', '-d', dbUrl, dump]
      const restoreTimes = await timeCommand('pg_restore', restoreArgs, runs)
      record('postgres', 'baseline: pg_restore --clean', restoreTimes, '')
    })
  } finally {
    await stopPostgres(cluster)
  }
}

console.log(
  `${versions} secret versions, ${runs} runs each (after one warm-up), CLI wall time including startup`,
)
printTable(['engine', 'operation', 'runs', 'median ms', 'p90 ms', 'archive bytes'], rows)
rmSync(work, { recursive: true, force: true })
