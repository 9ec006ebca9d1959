/**
 * Backup and restore against the real vault (its HTTP handler on 127.0.0.1) on SQLite and on the
 * private PostgreSQL: a backup taken while writes continue, wipe, restore, and then every version
 * reads back through the API with its value, the identity still logs in, the audit chain verifies.
 * Bad archives and a wrong key are refused before any change while the server keeps serving.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { backupDatabase } from '../../src/backup/backup.js'
import { tableSummaries } from '../../src/backup/archive-write.js'
import { restoreArchive } from '../../src/backup/restore.js'
import { takeSnapshot } from '../../src/backup/snapshot.js'
import { createDatabase, postgresOrNull, unavailableReason } from '../helpers/components.js'
import {
  auditChainVerifies,
  login,
  newKeyHex,
  putSecret,
  readSecret,
  recreatePostgresDatabase,
  seedProject,
  startVault,
} from './backup-fixture.js'

const work = mkdtempSync(join(tmpdir(), 'vault-backup-it-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const postgres = postgresOrNull()

interface Engine {
  name: string
  newDatabase(): Promise<string>
  wipe(dbUrl: string): Promise<void>
}

const sqlite: Engine = {
  name: 'sqlite',
  newDatabase: async () => `sqlite://${join(mkdtempSync(join(work, 'db-')), 'vault.db')}`,
  wipe: async (dbUrl) => {
    const path = dbUrl.slice('sqlite://'.length)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
  },
}
const postgresEngine: Engine = {
  name: 'postgres',
  newDatabase: () => createDatabase(postgres!, 'vault_backup'),
  wipe: (dbUrl) => recreatePostgresDatabase(dbUrl),
}

/** Content fingerprint of a live database: the manifest's per-table checksums. */
async function contentOf(dbUrl: string): Promise<unknown> {
  return tableSummaries(await takeSnapshot(dbUrl))
}

const names = ['DB_PASSWORD', 'API_KEY', 'JWT_SECRET', 'SMTP_PASSWORD']

describe.each([
  { engine: sqlite, available: true },
  { engine: postgresEngine, available: postgres !== null },
])('backup and restore on $engine.name', ({ engine, available }) => {
  it.skipIf(!available)(
    `round trip while writes continue, wipe, restore (postgres: ${unavailableReason('postgres')})`,
    async () => {
      const keyHex = newKeyHex()
      const dbUrl = await engine.newDatabase()
      let vault = await startVault(dbUrl, keyHex)
      const credentials = await seedProject(vault)
      const { token } = await login(vault.url, credentials)
      const written = new Map<string, string>()
      const write = async (env: string, name: string, value: string) => {
        const version = await putSecret(vault.url, token!, env, name, value)
        written.set(`${env}/${name}/${version}`, value)
      }
      for (const env of ['dev', 'prod']) {
        for (const name of names)
          for (let i = 1; i <= 3; i++) await write(env, name, `${env}-${name}-${i}-${'x'.repeat(i)}`)
      }

      let writing = true
      const writer = (async () => {
        for (let i = 0; writing && i < 400; i++)
          await write('dev', names[i % names.length]!, `concurrent-${i}`)
      })()
      await new Promise((resolve) => setTimeout(resolve, 50))
      const archive = join(work, `${engine.name}-round-trip.jsonl.gz`)
      const backup = await backupDatabase({ dbUrl, output: archive, encryptionKey: keyHex })
      writing = false
      await writer
      const archivedVersions = backup.manifest.tables.secret_versions!.rows
      expect(archivedVersions).toBeGreaterThan(names.length * 2 * 3)
      expect(written.size).toBeGreaterThan(archivedVersions)
      expect(backup.manifest.tables.audit_events!.rows).toBeGreaterThan(0)
      await vault.close()

      await engine.wipe(dbUrl)
      const result = await restoreArchive({ file: archive, dbUrl, encryptionKey: keyHex })
      expect(result.checked.secretVersions).toBe(archivedVersions)

      vault = await startVault(dbUrl, keyHex)
      try {
        const again = await login(vault.url, credentials)
        expect(again.status).toBe(200)
        let versionsRead = 0
        for (const env of ['dev', 'prod']) {
          for (const name of names) {
            for (let version = 1; ; version++) {
              const value = await readSecret(vault.url, again.token!, env, name, version)
              if (value === null) break
              expect(value).toBe(written.get(`${env}/${name}/${version}`))
              versionsRead++
            }
          }
        }
        expect(versionsRead).toBe(archivedVersions)
        expect(await auditChainVerifies(vault)).toBe(true)
      } finally {
        await vault.close()
      }
    },
  )

  it.skipIf(!available)(
    'refuses a flipped byte, a truncated file and a wrong key before any change',
    async () => {
      const keyHex = newKeyHex()
      const dbUrl = await engine.newDatabase()
      const vault = await startVault(dbUrl, keyHex)
      try {
        const credentials = await seedProject(vault)
        const { token } = await login(vault.url, credentials)
        await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', 'before-backup')
        const archive = join(work, `${engine.name}-bad-input.jsonl.gz`)
        await backupDatabase({ dbUrl, output: archive, encryptionKey: keyHex })
        await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', 'live-after-backup')

        const bytes = readFileSync(archive)
        const flipped = Buffer.from(bytes)
        flipped[Math.floor(bytes.length / 2)]! ^= 0x01
        writeFileSync(join(work, 'flipped.gz'), flipped)
        writeFileSync(join(work, 'truncated.gz'), bytes.subarray(0, bytes.length - 40))
        const attempts: [string, string, RegExp][] = [
          [join(work, 'flipped.gz'), keyHex, /cannot be used/],
          [join(work, 'truncated.gz'), keyHex, /cannot be used: it is truncated/],
          [archive, newKeyHex(), /ENCRYPTION_KEY does not match this archive \(expects fingerprint/],
        ]
        for (const [file, key, message] of attempts) {
          const before = await contentOf(dbUrl)
          const error = (await restoreArchive({ file, dbUrl, encryptionKey: key }).catch(
            (caught) => caught,
          )) as Error
          expect(error).toMatchObject({ code: 'ERR_INTEGRITY' })
          expect(error.message).toMatch(message)
          expect(error.message).toContain('nothing was changed')
          expect(await contentOf(dbUrl)).toEqual(before)
          expect(await readSecret(vault.url, token!, 'dev', 'DB_PASSWORD')).toBe('live-after-backup')
        }
        if (engine.name === 'sqlite') {
          const error = await restoreArchive({ file: archive, dbUrl, encryptionKey: keyHex }).catch(
            (caught) => caught,
          )
          expect(error).toMatchObject({ code: 'ERR_CONFLICT' })
          expect((error as Error).message).toMatch(/is in use/)
          expect(await readSecret(vault.url, token!, 'dev', 'DB_PASSWORD')).toBe('live-after-backup')
        }
      } finally {
        await vault.close()
      }
    },
  )
})
