/**
 * Moving between engines: a backup taken on SQLite restores into PostgreSQL and a backup of that
 * PostgreSQL restores into a new SQLite file; the same secrets, versions and values come back through
 * the API, the identity logs in and the audit chain verifies on each side.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { backupDatabase } from '../../src/backup/backup.js'
import { restoreArchive } from '../../src/backup/restore.js'
import { createDatabase, postgresOrNull, unavailableReason } from '../helpers/components.js'
import {
  auditChainVerifies,
  login,
  newKeyHex,
  putSecret,
  readSecret,
  seedProject,
  startVault,
  type Credentials,
} from './backup-fixture.js'

const work = mkdtempSync(join(tmpdir(), 'vault-cross-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const postgres = postgresOrNull()

async function everyVersion(
  dbUrl: string,
  keyHex: string,
  credentials: Credentials,
): Promise<Record<string, string>> {
  const vault = await startVault(dbUrl, keyHex)
  try {
    const { status, token } = await login(vault.url, credentials)
    expect(status).toBe(200)
    const values: Record<string, string> = {}
    for (const env of ['dev', 'prod']) {
      for (const name of ['DB_PASSWORD', 'API_KEY', 'UNICODE_VALUE']) {
        for (let version = 1; ; version++) {
          const value = await readSecret(vault.url, token!, env, name, version)
          if (value === null) break
          values[`${env}/${name}/${version}`] = value
        }
      }
    }
    expect(await auditChainVerifies(vault)).toBe(true)
    return values
  } finally {
    await vault.close()
  }
}

describe.skipIf(!postgres)(
  `SQLite to PostgreSQL and back (postgres: ${unavailableReason('postgres')})`,
  () => {
    it('restores the same secrets on the other engine, both ways', async () => {
      const keyHex = newKeyHex()
      const sqliteUrl = `sqlite://${join(work, 'source.db')}`
      const vault = await startVault(sqliteUrl, keyHex)
      const credentials = await seedProject(vault)
      const { token } = await login(vault.url, credentials)
      for (const env of ['dev', 'prod']) {
        for (let i = 1; i <= 3; i++) {
          await putSecret(vault.url, token!, env, 'DB_PASSWORD', `${env}-db-${i}`)
          await putSecret(vault.url, token!, env, 'API_KEY', `${env}-api-${i}`)
        }
        await putSecret(vault.url, token!, env, 'UNICODE_VALUE', `héllo ☃ "q" $x \\ ${env}`)
      }
      await vault.close()
      const original = await everyVersion(sqliteUrl, keyHex, credentials)
      expect(Object.keys(original)).toHaveLength(14)

      const toPostgres = join(work, 'from-sqlite.jsonl.gz')
      await backupDatabase({ dbUrl: sqliteUrl, output: toPostgres, encryptionKey: keyHex })
      const postgresUrl = await createDatabase(postgres!, 'vault_cross')
      await restoreArchive({ file: toPostgres, dbUrl: postgresUrl, encryptionKey: keyHex })
      expect(await everyVersion(postgresUrl, keyHex, credentials)).toEqual(original)

      const toSqlite = join(work, 'from-postgres.jsonl.gz')
      const backup = await backupDatabase({ dbUrl: postgresUrl, output: toSqlite, encryptionKey: keyHex })
      expect(backup.manifest.engine).toBe('postgres')
      const backUrl = `sqlite://${join(work, 'back.db')}`
      await restoreArchive({ file: toSqlite, dbUrl: backUrl, encryptionKey: keyHex })
      expect(await everyVersion(backUrl, keyHex, credentials)).toEqual(original)
    })
  },
)
