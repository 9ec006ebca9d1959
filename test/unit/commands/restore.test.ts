/**
 * `vault restore` in process on a real SQLite file written by the real server (moved from the spawned
 * test/integration/backup-cli.test.ts): --verify lists names and counts and never a value (canaries),
 * a missing or wrong key and a missing archive change nothing, and a restore refuses while a server
 * holds the file, then restores once it stopped. The full disk (a tmpfs, root only) stays in the
 * integration test.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Backup from '../../../src/commands/backup.js'
import Restore from '../../../src/commands/restore.js'
import { runCommand } from '../../helpers/run-command.js'
import {
  login,
  newKeyHex,
  putSecret,
  readSecret,
  seedProject,
  startVault,
  type Credentials,
} from '../../integration/backup-fixture.js'

// a real server and a database seeded in the hook: seconds on a loaded machine
const serverStart = 60_000
const work = mkdtempSync(join(tmpdir(), 'vault-restore-command-'))
const keyHex = newKeyHex()
const dbPath = join(work, 'data', 'vault.db')
const dbUrl = `sqlite://${dbPath}`
const canary = 'CANARY-restore-5b2e81'
const archive = join(work, 'restore.jsonl.gz')
let credentials: Credentials

const env = (extra: Record<string, string | undefined> = {}) => ({
  DB_URL: dbUrl,
  ENCRYPTION_KEY: keyHex,
  ...extra,
})

beforeAll(async () => {
  mkdirSync(join(work, 'data'))
  const vault = await startVault(dbUrl, keyHex)
  credentials = await seedProject(vault)
  const { token } = await login(vault.url, credentials)
  await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', `${canary}-1`)
  await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', `${canary}-2`)
  await putSecret(vault.url, token!, 'prod', 'API_KEY', `${canary}-3`)
  await vault.close()
  const backup = await runCommand(Backup, ['--output', archive], { env: env() })
  if (backup.exitCode !== 0) throw new Error(`backup failed: ${backup.stderr}`)
}, serverStart)
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('vault restore', () => {
  it('--verify lists names and counts, checks the key, and never shows a value', async () => {
    const result = await runCommand(Restore, ['--verify', archive], { env: { ENCRYPTION_KEY: keyHex } })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/OK \(MAC and checksums match/)
    expect(result.stdout).toMatch(
      /ENCRYPTION_KEY matches; \d+ secret versions decrypt; audit chain of \d+ events verifies/,
    )
    expect(result.stdout).toMatch(/demo \/ dev: 1 secret\n {4}DB_PASSWORD {2}2 versions\n/)
    expect(result.stdout).toMatch(/demo \/ prod: 1 secret\n {4}API_KEY {2}1 version\n/)
    expect(result.stdout + result.stderr).not.toContain(canary)
    const unchecked = await runCommand(Restore, ['--verify', archive], {
      env: { ENCRYPTION_KEY: undefined, DB_URL: undefined },
    })
    expect(unchecked.exitCode).toBe(3)
    expect(unchecked.stderr).toMatch(/ENCRYPTION_KEY is not set/)
    expect(unchecked.stdout).not.toMatch(/DB_PASSWORD/)
  })

  it('refuses without ENCRYPTION_KEY, with a wrong one, and on a missing archive, changing nothing', async () => {
    const cases: [Record<string, string | undefined>, string, number, RegExp][] = [
      [env({ ENCRYPTION_KEY: undefined }), archive, 3, /ENCRYPTION_KEY is not set/],
      [env({ ENCRYPTION_KEY: newKeyHex() }), archive, 8, /ENCRYPTION_KEY does not match this archive/],
      [env({ ENCRYPTION_KEY: 'short' }), archive, 2, /ENCRYPTION_KEY must be exactly 64 hexadecimal/],
      [env(), join(work, 'absent.gz'), 5, /does not exist/],
    ]
    for (const [variables, file, exitCode, message] of cases) {
      const before = readFileSync(dbPath)
      const result = await runCommand(Restore, [file], { env: variables })
      expect(result.exitCode, result.stderr).toBe(exitCode)
      expect(result.stderr.split('\n').find((line) => line.startsWith('Error:'))).toMatch(message)
      expect(readFileSync(dbPath)).toEqual(before)
    }
  })

  it(
    'refuses while a server holds the SQLite file, then restores once it stopped',
    async () => {
      const vault = await startVault(dbUrl, keyHex)
      const { token } = await login(vault.url, credentials)
      await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', 'written-after-backup')
      const busy = await runCommand(Restore, [archive], { env: env() })
      expect(busy.exitCode).toBe(6)
      expect(busy.stderr).toMatch(/is in use \(is a vault server running on it\?\); nothing was changed/)
      expect(await readSecret(vault.url, token!, 'dev', 'DB_PASSWORD')).toBe('written-after-backup')
      await vault.close()

      const result = await runCommand(Restore, [archive], { env: env() })
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
    },
    serverStart,
  )
})
