/**
 * `vault backup` and `vault restore` as a user runs them (the built CLI): the archive path on stdout
 * and the summary and key reminder on stderr, mode 600, a verified --copy-to, --verify listing names
 * and counts and never a value (canaries), --json, one clear line and no change for a full disk
 * (a small tmpfs), a missing key, and a restore into SQLite while a server holds the file.
 */
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  copyFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tableSummaries } from '../../src/backup/archive-write.js'
import { takeSnapshot } from '../../src/backup/snapshot.js'
import { runCli } from '../helpers/cli.js'
import {
  login,
  newKeyHex,
  putSecret,
  readSecret,
  seedProject,
  seedVersions,
  startVault,
  type Credentials,
} from './backup-fixture.js'

const work = mkdtempSync(join(tmpdir(), 'vault-backup-cli-'))
const keyHex = newKeyHex()
const dbPath = join(work, 'data', 'vault.db')
const dbUrl = `sqlite://${dbPath}`
const canary = 'CANARY-backup-7f3a9c'
let credentials: Credentials

beforeAll(async () => {
  const vault = await startVault(dbUrl, keyHex)
  credentials = await seedProject(vault)
  const { token } = await login(vault.url, credentials)
  await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', `${canary}-1`)
  await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', `${canary}-2`)
  await putSecret(vault.url, token!, 'prod', 'API_KEY', `${canary}-3`)
  await vault.close()
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

const env = (extra: Record<string, string> = {}) => ({ DB_URL: dbUrl, ENCRYPTION_KEY: keyHex, ...extra })

describe('vault backup', () => {
  it('prints the archive path on stdout, the summary and the key reminder on stderr, mode 600', async () => {
    const offsite = join(work, 'offsite')
    mkdirSync(offsite)
    const archive = join(work, 'cli.jsonl.gz')
    const result = await runCli(['backup', '--output', archive, '--copy-to', offsite], { env: env() })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe(`${archive}\n`)
    expect(result.stderr).toMatch(/ENCRYPTION_KEY is NOT in this archive/)
    expect(result.stderr).toMatch(/2 secrets, 3 versions, 1 identity, \d+ audit events/)
    expect(result.stderr).toMatch(/Copied to .*offsite.*verified/)
    expect(statSync(archive).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(offsite, 'cli.jsonl.gz'))).toEqual(readFileSync(archive))
    expect(statSync(join(offsite, 'cli.jsonl.gz')).mode & 0o777).toBe(0o600)
    const text = gunzipSync(readFileSync(archive)).toString('utf8')
    expect(text).toContain('DB_PASSWORD')
    expect(text).not.toContain(canary)
    expect(result.stdout + result.stderr).not.toContain(canary)
  })

  it('answers --json with the result object', async () => {
    const archive = join(work, 'json.jsonl.gz')
    const result = await runCli(['backup', '--output', archive, '--json'], { env: env() })
    expect(result.exitCode, result.stderr).toBe(0)
    const parsed = JSON.parse(result.stdout) as {
      path: string
      manifest: { tables: Record<string, unknown> }
    }
    expect(parsed.path).toBe(archive)
    expect(parsed.manifest.tables).toHaveProperty('secret_versions')
  })

  it('reports a full disk in one line and leaves no partial archive', async (context) => {
    const small = join(work, 'small-disk')
    mkdirSync(small)
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'tmpfs', small], { stdio: 'ignore' })
    } catch {
      context.skip('mounting a tmpfs needs root')
    }
    try {
      const paddedUrl = `sqlite://${join(work, 'padded.db')}`
      const seed = await startVault(paddedUrl, keyHex)
      await seedVersions(seed, (await seedProject(seed)).projectId, 400, 'padding')
      await seed.close()
      const result = await runCli(['backup', '--output', join(small, 'vault.jsonl.gz')], {
        env: { VAULT_DB_URL: paddedUrl, VAULT_ENCRYPTION_KEY: keyHex },
      })
      expect(result.exitCode).toBe(9)
      expect(result.stderr).toMatch(
        /^Error: no space left on the device while writing .*; nothing was changed\n/,
      )
      expect(readdirSync(small)).toEqual([])
    } finally {
      execFileSync('umount', [small])
    }
  })
})

describe('vault restore', () => {
  let archive: string
  beforeAll(async () => {
    archive = join(work, 'restore.jsonl.gz')
    const result = await runCli(['backup', '--output', archive], { env: env() })
    expect(result.exitCode, result.stderr).toBe(0)
  })

  it('--verify lists names and counts, checks the key, and never shows a value', async () => {
    const result = await runCli(['restore', '--verify', archive], { env: { ENCRYPTION_KEY: keyHex } })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/OK \(MAC and checksums match/)
    expect(result.stdout).toMatch(
      /ENCRYPTION_KEY matches; \d+ secret versions decrypt; audit chain of \d+ events verifies/,
    )
    expect(result.stdout).toMatch(/demo \/ dev: 1 secret\n {4}DB_PASSWORD {2}2 versions\n/)
    expect(result.stdout).toMatch(/DB_PASSWORD {2}2 versions/)
    expect(result.stdout).toMatch(/demo \/ prod: 1 secret\n {4}API_KEY {2}1 version\n/)
    expect(result.stdout + result.stderr).not.toContain(canary)
    const unchecked = await runCli(['restore', '--verify', archive], { env: {} })
    expect(unchecked.exitCode).toBe(3)
    expect(unchecked.stderr).toMatch(/ENCRYPTION_KEY is not set/)
    expect(unchecked.stdout).not.toMatch(/DB_PASSWORD/)
  })

  it('refuses without ENCRYPTION_KEY, with a wrong one, and on a missing archive', async () => {
    const cases: [Record<string, string>, string, number, RegExp][] = [
      [{ DB_URL: dbUrl }, archive, 3, /ENCRYPTION_KEY is not set/],
      [env({ ENCRYPTION_KEY: newKeyHex() }), archive, 8, /ENCRYPTION_KEY does not match this archive/],
      [env({ ENCRYPTION_KEY: 'short' }), archive, 2, /ENCRYPTION_KEY must be exactly 64 hexadecimal/],
      [env(), join(work, 'absent.gz'), 5, /does not exist/],
    ]
    for (const [variables, file, exitCode, message] of cases) {
      const before = readFileSync(dbPath)
      const result = await runCli(['restore', file], { env: variables })
      expect(result.exitCode, result.stderr).toBe(exitCode)
      expect(result.stderr.split('\n').find((line) => line.startsWith('Error:'))).toMatch(message)
      expect(readFileSync(dbPath)).toEqual(before)
    }
  })

  it('refuses while a server holds the SQLite file, then restores once it stopped', async () => {
    const vault = await startVault(dbUrl, keyHex)
    const { token } = await login(vault.url, credentials)
    await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', 'written-after-backup')
    const busy = await runCli(['restore', archive], { env: env() })
    expect(busy.exitCode).toBe(6)
    expect(busy.stderr).toMatch(/is in use \(is a vault server running on it\?\); nothing was changed/)
    expect(await readSecret(vault.url, token!, 'dev', 'DB_PASSWORD')).toBe('written-after-backup')
    await vault.close()

    const result = await runCli(['restore', archive], { env: env() })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/==> checking the archive[\s\S]*==> importing[\s\S]*==> swapping/)
    const previous = /kept as (\S+)/.exec(result.stderr)?.[1]
    expect(previous && existsSync(previous)).toBe(true)
    expect(readdirSync(join(work, 'data')).filter((name) => name.includes('.restore-'))).toEqual([])

    const restored = await startVault(dbUrl, keyHex)
    const session = await login(restored.url, credentials)
    expect(await readSecret(restored.url, session.token!, 'dev', 'DB_PASSWORD')).toBe(`${canary}-2`)
    await restored.close()
  })

  it('reports a full disk during the restore in one line and keeps the live data', async (context) => {
    const small = join(work, 'small-data')
    mkdirSync(small)
    const size = statSync(dbPath).size
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size + 64 * 1024}`, 'tmpfs', small], {
        stdio: 'ignore',
      })
    } catch {
      context.skip('mounting a tmpfs needs root')
    }
    try {
      const liveUrl = `sqlite://${join(small, 'vault.db')}`
      copyFileSync(dbPath, join(small, 'vault.db'))
      const before = JSON.stringify(tableSummaries(await takeSnapshot(liveUrl)))
      const big = join(work, 'big.jsonl.gz')
      const seed = await startVault(dbUrl, keyHex)
      await seedVersions(seed, credentials.projectId, 1500, 'more')
      await seed.close()
      expect((await runCli(['backup', '--output', big], { env: env() })).exitCode).toBe(0)
      const result = await runCli(['restore', big], { env: env({ DB_URL: liveUrl }) })
      expect(result.exitCode).toBe(9)
      expect(result.stderr).toMatch(
        /Error: no space left on the device while writing .*; nothing was changed\n/,
      )
      expect(JSON.stringify(tableSummaries(await takeSnapshot(liveUrl)))).toBe(before)
      expect(readdirSync(small).filter((name) => name.includes('.restore-'))).toEqual([])
    } finally {
      execFileSync('umount', [small])
    }
  })
})
