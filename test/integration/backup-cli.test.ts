/**
 * `vault backup` and `vault restore` as a user runs them (the built CLI) on a full disk (a small
 * tmpfs, which needs root): one clear line, exit code 9 and no change. The rest of both commands is
 * tested in process: test/unit/commands/backup.test.ts and restore.test.ts.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tableSummaries } from '../../src/backup/archive-write.js'
import { takeSnapshot } from '../../src/backup/snapshot.js'
import { runCli } from '../helpers/cli.js'
import {
  login,
  newKeyHex,
  putSecret,
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
