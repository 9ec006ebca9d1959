/**
 * Peak memory and wall time of `vault restore --verify` and `vault restore` (the built CLI) on gzip
 * bombs and on a genuine archive, against the 150 MB limit of issue 14 and, in the same run, against
 * the previous way of reading an archive (the whole file gunzipped in memory, measured in a child on a
 * 256 MiB bomb). Peaks are each process's own VmHWM. Needs `make build`; SQLite only, no network.
 */
import { randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { backupDatabase } from '../src/backup/backup.js'
import { archiveFormat, archiveFormatVersion } from '../src/backup/manifest.js'
import { keyFingerprint } from '../src/crypto/envelope.js'
import { appendAudit } from '../src/server/audit.js'
import { createIdentity, createProject } from '../src/server/identities.js'
import { loadKeyring } from '../src/server/keyring.js'
import { writeSecret } from '../src/server/secrets.js'
import { createVaultContext } from '../src/server/server.js'
import { openStore, schemaVersion } from '../src/server/store/index.js'
import { printTable } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const reportRss = fileURLToPath(new URL('../test/adversarial/backup/report-max-rss.mjs', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'vault-bench-restore-memory-'))
const keyHex = randomBytes(32).toString('hex')
const mebibyte = 1024 * 1024
const rows: (string | number)[][] = []

function measure(label: string, file: string, args: string[]): void {
  const rssFile = join(work, 'rss')
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, ['--import', reportRss, ...args], {
    env: { PATH: process.env.PATH, ENCRYPTION_KEY: keyHex, VAULT_TEST_RSS_FILE: rssFile },
    stdio: 'ignore',
  })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  const peak = Number(readFileSync(rssFile, 'utf8')) / mebibyte
  rows.push([label, `${(statSync(file).size / 1024).toFixed(0)} KiB`, String(result.status), peak, ms])
}

function bomb(name: string, body: Buffer): string {
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

async function genuineArchive(versions: number, events: number): Promise<string> {
  const dbUrl = `sqlite://${join(work, 'genuine.db')}`
  const driver = await openStore(dbUrl)
  const keyring = await loadKeyring(driver, Buffer.from(keyHex, 'hex'))
  const context = createVaultContext({ driver, keyring, config: { jwtSecret: randomBytes(32) } })
  const projectId = await driver.transaction(async (tx) => {
    const project = await createProject(tx, 'bench', ['dev'])
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
          { name: `SECRET_${i % 300}`, value: randomBytes(24).toString('base64url'), mode: 'upsert' },
        )
      }
    })
  }
  for (let start = 0; start < events; start += 5000) {
    await driver.transaction(async (tx) => {
      for (let i = start; i < Math.min(events, start + 5000); i++) {
        await appendAudit(tx, keyring.auditKey, {
          ...scope,
          action: 'secret.read',
          target: `SECRET_${i % 300}`,
          result: 'ok',
        })
      }
    })
  }
  await driver.close()
  const path = join(work, 'genuine.jsonl.gz')
  await backupDatabase({ dbUrl, output: path, encryptionKey: keyHex })
  return path
}

try {
  const line = `${JSON.stringify({ table: 'meta', rows: [{ key: 'k', value: 'v'.repeat(1000) }] })}\n`
  const bombs: [string, string][] = [
    ['bomb: one endless line, 1 GiB', bomb('endless', members(Buffer.alloc(16 * mebibyte, 0x20), 64))],
    [
      'bomb: 1 KiB chunk lines, 1 GiB',
      bomb('lines', members(Buffer.from(line.repeat(Math.floor((16 * mebibyte) / line.length))), 64)),
    ],
    [
      'bomb: empty-ish lines, 1 GiB',
      bomb('tiny', members(Buffer.from('{}\n'.repeat((16 * mebibyte) / 4)), 64)),
    ],
  ]
  for (const [label, path] of bombs) measure(`verify, ${label}`, path, [runJs, 'restore', '--verify', path])
  const genuine = await genuineArchive(
    Number(process.env.BENCH_VERSIONS ?? 5000),
    Number(process.env.BENCH_EVENTS ?? 60000),
  )
  measure('verify, genuine archive', genuine, [runJs, 'restore', '--verify', genuine])
  measure('restore, genuine archive', genuine, [
    runJs,
    'restore',
    genuine,
    '--db-url',
    `sqlite://${join(work, 'restored.db')}`,
  ])
  const previous = bomb('previous', members(Buffer.alloc(16 * mebibyte, 0x20), 16))
  measure('previous reader (gunzip whole file), 256 MiB bomb', previous, [
    '--input-type=module',
    '-e',
    `import { gunzipSync } from 'node:zlib'; import { readFileSync } from 'node:fs'; gunzipSync(readFileSync(${JSON.stringify(previous)}))`,
  ])
  console.log('Peak memory of restore and --verify (limit: 150 MB; baseline: the previous whole-file gunzip)')
  printTable(['case', 'file', 'exit', 'peak MiB', 'wall ms'], rows)
} finally {
  rmSync(work, { recursive: true, force: true })
}
