/**
 * Gzip bombs against the built CLI's `vault restore` and `vault restore --verify`, on SQLite and
 * PostgreSQL. Each bomb is a small file that inflates to 1 GiB behind a valid-looking manifest (the
 * victim's public key fingerprint, the current format). Property of every row: refused with exit 8 at
 * the inflate cap, the process's peak resident memory (VmHWM, reported by the child itself) stays
 * under 150 MB, and the live database is unchanged.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { archiveFormat, archiveFormatVersion } from '../../../../src/backup/manifest.js'
import { keyFingerprint } from '../../../../src/crypto/envelope.js'
import { schemaVersion } from '../../../../src/server/migrations.js'
import { runJs } from '../../../helpers/cli.js'
import { unavailableReason } from '../../../helpers/components.js'
import { engines, liveState, startVictim, type Victim } from './victim.js'

const work = mkdtempSync(join(tmpdir(), 'vault-bomb-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const reportRss = fileURLToPath(new URL('../../../helpers/report-max-rss.mjs', import.meta.url))
const memoryLimit = 150 * 1024 * 1024
const mebibyte = 1024 * 1024

function manifestLine(keyHex: string): Buffer {
  const manifest = {
    format: archiveFormat,
    formatVersion: archiveFormatVersion,
    schemaVersion,
    appVersion: '0.0.0',
    createdAt: new Date().toISOString(),
    engine: 'sqlite',
    keyFingerprint: keyFingerprint(Buffer.from(keyHex, 'hex')),
    tables: { meta: { rows: 0, sha256: '0'.repeat(64) } },
  }
  return gzipSync(`${JSON.stringify({ manifest })}\n`)
}

/** `copies` gzip members of one 16 MiB block each: 1 GiB inflated from about 1 MB on disk. */
function repeatedMembers(block: Buffer, copies: number): Buffer {
  const member = gzipSync(block, { level: 9 })
  return Buffer.concat(Array.from({ length: copies }, () => member))
}

const bombs: { attack: string; body: () => Buffer; refusal: RegExp }[] = [
  {
    attack: 'one endless line of spaces (1 GiB)',
    body: () => repeatedMembers(Buffer.alloc(16 * mebibyte, 0x20), 64),
    refusal: /holds a line longer than 4 MiB/,
  },
  {
    attack: 'many valid 1 KiB chunk lines (1 GiB)',
    body: () => {
      const line = `${JSON.stringify({ table: 'meta', rows: [{ key: 'k', value: 'v'.repeat(1000) }] })}\n`
      return repeatedMembers(Buffer.from(line.repeat(Math.floor((16 * mebibyte) / line.length))), 64)
    },
    refusal: /inflates to more than 64 MiB \(a gzip bomb\?\)/,
  },
  {
    attack: 'many tiny lines (1 GiB of "{}")',
    body: () => repeatedMembers(Buffer.from('{}\n'.repeat(Math.floor((16 * mebibyte) / 3))), 64),
    refusal: /holds more than 100000 lines/,
  },
  {
    attack: 'one deflate stream of spaces (96 MiB in one member)',
    body: () => gzipSync(Buffer.alloc(96 * mebibyte, 0x20), { level: 9 }),
    refusal: /holds a line longer than 4 MiB/,
  },
]

/** Runs the built CLI with the peak-memory reporter preloaded. */
async function runMeasured(args: string[], env: Record<string, string>) {
  const rssFile = join(work, `rss-${Math.random().toString(36).slice(2)}`)
  const result = await execa(process.execPath, ['--import', reportRss, runJs, ...args], {
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', VAULT_TEST_RSS_FILE: rssFile, ...env },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  })
  return {
    exitCode: result.exitCode,
    stderr: String(result.stderr),
    peak: Number(readFileSync(rssFile, 'utf8')),
  }
}

describe.each(engines)('gzip bombs against restore on $name', (engine) => {
  let victim: Victim
  beforeAll(async () => {
    if (!engine.available) return
    const started = await startVictim(engine, work)
    victim = started.victim
    await started.vault.close()
  })

  it.skipIf(!engine.available).each(bombs)(
    `$attack: refused (exit 8) under 150 MB, live database unchanged (postgres: ${unavailableReason('postgres')})`,
    async ({ attack, body, refusal }) => {
      const bomb = join(work, `${engine.name}-${attack.replace(/\W+/g, '-')}.jsonl.gz`)
      const compressed = Buffer.concat([manifestLine(victim.keyHex), body()])
      expect(compressed.length).toBeLessThan(4 * mebibyte)
      writeFileSync(bomb, compressed)
      const env = { DB_URL: victim.dbUrl, ENCRYPTION_KEY: victim.keyHex }
      const before = await liveState(victim.dbUrl)
      const restore = await runMeasured(['restore', bomb], env)
      expect(restore.exitCode, restore.stderr).toBe(8)
      expect(restore.stderr).toMatch(refusal)
      expect(restore.peak).toBeGreaterThan(0)
      expect(restore.peak).toBeLessThan(memoryLimit)
      expect(await liveState(victim.dbUrl)).toBe(before)
      if (engine.name === 'sqlite') {
        const verify = await runMeasured(['restore', '--verify', bomb], env)
        expect(verify.exitCode, verify.stderr).toBe(8)
        expect(verify.stderr).toMatch(refusal)
        expect(verify.peak).toBeLessThan(memoryLimit)
      }
    },
  )
})
