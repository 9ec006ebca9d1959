/**
 * `vault backup` in process on a real SQLite file written by the real server (moved from the spawned
 * test/integration/backup-cli.test.ts): the archive path on stdout, the summary and the key reminder
 * on stderr, mode 600, a verified --copy-to, never a value (canaries), and the --json answer. The full
 * disk (a tmpfs, root only) stays in the integration test.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Backup from '../../../src/commands/backup.js'
import { runCommand } from '../../helpers/run-command.js'
import { login, newKeyHex, putSecret, seedProject, startVault } from '../../integration/backup-fixture.js'

// a real server and a database seeded in the hook: seconds on a loaded machine
const serverStart = 60_000
const work = mkdtempSync(join(tmpdir(), 'vault-backup-command-'))
const keyHex = newKeyHex()
const dbUrl = `sqlite://${join(work, 'vault.db')}`
const canary = 'CANARY-backup-7f3a9c'
const env = { DB_URL: dbUrl, ENCRYPTION_KEY: keyHex }

beforeAll(async () => {
  const vault = await startVault(dbUrl, keyHex)
  const { token } = await login(vault.url, await seedProject(vault))
  await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', `${canary}-1`)
  await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', `${canary}-2`)
  await putSecret(vault.url, token!, 'prod', 'API_KEY', `${canary}-3`)
  await vault.close()
}, serverStart)
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('vault backup', () => {
  it('prints the archive path on stdout, the summary and the key reminder on stderr, mode 600', async () => {
    const offsite = join(work, 'offsite')
    mkdirSync(offsite)
    const archive = join(work, 'cli.jsonl.gz')
    const result = await runCommand(Backup, ['--output', archive, '--copy-to', offsite], { env })
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
    const result = await runCommand(Backup, ['--output', archive, '--json'], { env })
    expect(result.exitCode, result.stderr).toBe(0)
    const parsed = JSON.parse(result.stdout) as {
      path: string
      manifest: { tables: Record<string, unknown> }
    }
    expect(parsed.path).toBe(archive)
    expect(parsed.manifest.tables).toHaveProperty('secret_versions')
  })
})
