/**
 * `vault restore` (the built CLI) killed with SIGKILL at several points of its work, on SQLite and on
 * PostgreSQL: afterwards the database holds either exactly its previous content or exactly the
 * archive's (never a mix), and it still opens and serves through the vault API.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tableSummaries } from '../../src/backup/archive-write.js'
import { backupDatabase } from '../../src/backup/backup.js'
import { takeSnapshot } from '../../src/backup/snapshot.js'
import { runJs } from '../helpers/cli.js'
import { createDatabase, postgresOrNull, unavailableReason } from '../helpers/components.js'
import {
  login,
  newKeyHex,
  putSecret,
  readSecret,
  seedProject,
  seedVersions,
  startVault,
} from './backup-fixture.js'

const work = mkdtempSync(join(tmpdir(), 'vault-kill-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const postgres = postgresOrNull()

async function contentOf(dbUrl: string): Promise<string> {
  return JSON.stringify(tableSummaries(await takeSnapshot(dbUrl)))
}

/** Runs `vault restore` and SIGKILLs it as soon as stderr matches `point`; resolves with what happened. */
function restoreKilledAt(archive: string, dbUrl: string, keyHex: string, point: RegExp) {
  return new Promise<{ killed: boolean; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [runJs, 'restore', archive, '--db-url', dbUrl], {
      env: { PATH: process.env.PATH, ENCRYPTION_KEY: keyHex },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    let killed = false
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      if (!killed && point.test(stderr)) {
        killed = child.kill('SIGKILL')
      }
    })
    child.on('exit', () => resolve({ killed, stderr }))
  })
}

const killPoints = {
  sqlite: [
    /checking the archive/,
    /importing into the temporary/,
    /checking the temporary database/,
    /swapping/,
  ],
  postgres: [
    /checking the archive/,
    /locking the live tables/,
    /replacing the data/,
    /checking the restored data/,
    /committing/,
  ],
}

describe.each([
  { engine: 'sqlite' as const, available: true },
  { engine: 'postgres' as const, available: postgres !== null },
])('vault restore killed with SIGKILL on $engine', ({ engine, available }) => {
  it.skipIf(!available)(
    `leaves an openable database at every point (postgres: ${unavailableReason('postgres')})`,
    async () => {
      const keyHex = newKeyHex()
      const dbUrl =
        engine === 'sqlite'
          ? `sqlite://${join(work, 'kill.db')}`
          : await createDatabase(postgres!, 'vault_kill')
      let vault = await startVault(dbUrl, keyHex)
      const credentials = await seedProject(vault)
      await seedVersions(vault, credentials.projectId, 3000, 'archived')
      const archive = join(work, `${engine}.jsonl.gz`)
      const backup = await backupDatabase({ dbUrl, output: archive, encryptionKey: keyHex })
      const archived = JSON.stringify(backup.manifest.tables)
      const { token } = await login(vault.url, credentials)
      await putSecret(vault.url, token!, 'dev', 'BULK_1', 'live-after-backup')
      await vault.close()

      for (const point of killPoints[engine]) {
        const before = await contentOf(dbUrl)
        const outcome = await restoreKilledAt(archive, dbUrl, keyHex, point)
        expect(outcome.killed, `${point} was reached: ${outcome.stderr}`).toBe(true)
        const after = await contentOf(dbUrl)
        const late = /swapping|committing/.test(point.source)
        if (late) expect([before, archived]).toContain(after)
        else expect(after).toBe(before)

        vault = await startVault(dbUrl, keyHex)
        const session = await login(vault.url, credentials)
        expect(session.status).toBe(200)
        const value = await readSecret(vault.url, session.token!, 'dev', 'BULK_1')
        expect(['live-after-backup', 'archived-2951']).toContain(value)
        await vault.close()
      }
    },
  )
})
