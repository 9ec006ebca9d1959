/**
 * Peak memory and wall time of `vault restore --verify` and `vault restore` (the built CLI) on genuine
 * archives of increasing size up to the 64 MiB inflate cap (SQLite, and PostgreSQL when its binaries
 * are there), and on gzip bombs, against the 150 MB limit of issue 14. Baseline, measured in the same
 * run: the same command in the process set-up restore had before (V8's default young generation, no
 * paced collection: restore-launch.ts is bypassed by passing its flags, then overridden), and the
 * previous reader of an archive (the whole file gunzipped in memory) on a 256 MiB bomb. Peaks are each
 * process's own VmHWM. Needs `make build`; traffic to 127.0.0.1 only.
 */
import { randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync, gzipSync } from 'node:zlib'
import pg from 'pg'
import { archiveFormat, archiveFormatVersion } from '../src/backup/manifest.js'
import { restoreNodeFlags } from '../src/backup/restore-launch.js'
import { keyFingerprint } from '../src/crypto/envelope.js'
import { schemaVersion } from '../src/server/migrations.js'
import {
  buildGenuineArchive,
  type GenuineArchive,
} from '../test/integration/adversarial/backup/genuine-archive.js'
import { postgresUnavailableReason, startPostgres, stopPostgres } from '../test/harness/postgres.js'
import { printTable } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const reportRss = fileURLToPath(new URL('../test/helpers/report-max-rss.mjs', import.meta.url))
const unpaced = fileURLToPath(new URL('./unpaced.mjs', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'vault-bench-restore-memory-'))
const mebibyte = 1024 * 1024
const rows: (string | number)[][] = []
/** The previous process set-up: restore's flags given (so it does not re-run itself), then undone. */
const baselineFlags = [...restoreNodeFlags, '--max-semi-space-size=16', '--import', unpaced]

function measure(options: { label: string; flags: string[]; args: string[]; keyHex: string }) {
  const rssFile = join(work, 'rss')
  rmSync(rssFile, { force: true })
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, [...options.flags, '--import', reportRss, ...options.args], {
    env: {
      PATH: process.env.PATH,
      ENCRYPTION_KEY: options.keyHex,
      VAULT_TEST_RSS_FILE: rssFile,
    },
    stdio: 'ignore',
  })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  return { status: result.status, peak: Number(readFileSync(rssFile, 'utf8')) / mebibyte, ms }
}

/** One row: the command on `archive` as restore runs it now, and with the previous set-up. */
function compare(
  label: string,
  archive: GenuineArchive,
  args: (run: string) => string[],
  inflated = `${(gunzipSync(readFileSync(archive.path)).length / mebibyte).toFixed(1)} MiB`,
) {
  const now = measure({ label, flags: [], args: [runJs, ...args('now')], keyHex: archive.keyHex })
  const before = measure({
    label,
    flags: baselineFlags,
    args: [runJs, ...args('before')],
    keyHex: archive.keyHex,
  })
  rows.push([label, inflated, `${now.status}/${before.status}`, before.peak, now.peak, before.ms, now.ms])
}

function bomb(name: string, keyHex: string, body: Buffer): string {
  const manifest = {
    format: archiveFormat,
    formatVersion: archiveFormatVersion,
    schemaVersion,
    appVersion: '0.0.0',
    keyFingerprint: keyFingerprint(Buffer.from(keyHex, 'hex')),
    tables: { meta: { rows: 0, sha256: '0'.repeat(64) } },
  }
  const path = join(work, `${name}.jsonl.gz`)
  writeFileSync(path, Buffer.concat([gzipSync(`${JSON.stringify({ manifest })}\n`), body]))
  return path
}

const members = (block: Buffer, copies: number) => {
  const member = gzipSync(block, { level: 9 })
  return Buffer.concat(Array.from({ length: copies }, () => member))
}

/** Genuine archives from small to just under the cap (15,000 versions + 130,000 events: ~59 MiB). */
const sizes = [
  { name: 'small', versions: 300, events: 1_000 },
  { name: 'quarter', versions: 4_000, events: 32_000 },
  { name: 'half', versions: 8_000, events: 65_000 },
  { name: 'cap', versions: 15_000, events: 130_000 },
]

let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined
try {
  const pgReason = postgresUnavailableReason()
  if (pgReason) console.error(`PostgreSQL rows skipped: ${pgReason}`)
  else postgres = await startPostgres()
  let databases = 0
  const newPostgresDatabase = async () => {
    const name = `vault_bench_${++databases}`
    const admin = new pg.Client({ connectionString: postgres!.url })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    return postgres!.url.replace(/\/postgres$/, `/${name}`)
  }
  for (const size of sizes) {
    const archive = await buildGenuineArchive({ directory: work, ...size })
    const label = `${size.versions} versions, ${size.events} events`
    compare(`verify, ${label}`, archive, () => ['restore', '--verify', archive.path])
    compare(`restore sqlite, ${label}`, archive, (run) => [
      'restore',
      archive.path,
      '--db-url',
      `sqlite://${join(work, `${size.name}-${run}.db`)}`,
    ])
    if (postgres) {
      const urls = { now: await newPostgresDatabase(), before: await newPostgresDatabase() }
      compare(`restore postgres, ${label}`, archive, (run) => [
        'restore',
        archive.path,
        '--db-url',
        urls[run as 'now' | 'before'],
      ])
    }
  }
  const keyHex = randomBytes(32).toString('hex')
  const line = `${JSON.stringify({ table: 'meta', rows: [{ key: 'k', value: 'v'.repeat(1000) }] })}\n`
  const bombs: [string, string][] = [
    [
      'bomb: one endless line, 1 GiB',
      bomb('endless', keyHex, members(Buffer.alloc(16 * mebibyte, 0x20), 64)),
    ],
    [
      'bomb: 1 KiB chunk lines, 1 GiB',
      bomb('lines', keyHex, members(Buffer.from(line.repeat(Math.floor((16 * mebibyte) / line.length))), 64)),
    ],
  ]
  for (const [label, path] of bombs) {
    compare(`verify, ${label}`, { path, keyHex }, () => ['restore', '--verify', path], '1 GiB')
  }
  const previous = bomb('previous', keyHex, members(Buffer.alloc(16 * mebibyte, 0x20), 16))
  const whole = measure({
    label: 'previous reader',
    flags: [],
    keyHex,
    args: [
      '--input-type=module',
      '-e',
      `import { gunzipSync } from 'node:zlib'; import { readFileSync } from 'node:fs'; gunzipSync(readFileSync(${JSON.stringify(previous)}))`,
    ],
  })
  console.log(
    'Peak memory (MiB, VmHWM) of restore and --verify; limit 150 MB (issue 14). Baseline "before": the same',
  )
  console.log('command under V8 defaults without paced collection (the previous process set-up).')
  console.log(
    `The previous archive reader (whole file gunzipped) peaked at ${whole.peak.toFixed(0)} MiB on a 256 MiB bomb (${(statSync(previous).size / 1024).toFixed(0)} KiB).`,
  )
  printTable(['case', 'inflated', 'exit now/before', 'peak before', 'peak now', 'ms before', 'ms now'], rows)
} finally {
  if (postgres) await stopPostgres(postgres)
  rmSync(work, { recursive: true, force: true })
}
