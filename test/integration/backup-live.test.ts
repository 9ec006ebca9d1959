/**
 * A backup taken with `vault backup` (its own process) while a separate `vault server` process keeps
 * writing through the API, on SQLite and on PostgreSQL: the archive is one consistent point in time
 * (every secret's current version is its newest archived version, the audit chain and its head agree,
 * every version decrypts), and the writes went on during the backup.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readArchive } from '../../src/backup/archive-read.js'
import { verifyArchive } from '../../src/backup/verify.js'
import { runCli } from '../helpers/cli.js'
import { createDatabase, postgresOrNull, unavailableReason } from '../helpers/components.js'
import { spawnVaultProcess, startVaultServer } from '../helpers/vault-server.js'
import { putSecret, seedVersions } from './backup-fixture.js'

const work = mkdtempSync(join(tmpdir(), 'vault-live-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const postgres = postgresOrNull()

describe.each([
  { engine: 'sqlite', available: true },
  { engine: 'postgres', available: postgres !== null },
])('vault backup while a server process writes ($engine)', ({ engine, available }) => {
  it.skipIf(!available)(
    `is one consistent snapshot (postgres: ${unavailableReason('postgres')})`,
    async () => {
      const dbUrl =
        engine === 'sqlite'
          ? `sqlite://${join(work, 'live.db')}`
          : await createDatabase(postgres!, 'vault_live')
      const setup = await startVaultServer({ dbUrl })
      await seedVersions(setup.running, setup.projectId, 5000, 'seeded')
      const credentials = setup.deploymentCredentials
      const keys = { dbUrl, encryptionKey: setup.encryptionKey, jwtSecret: setup.jwtSecret }
      await setup.running.close()

      const server = await spawnVaultProcess(keys)
      try {
        const token = await setup.token(credentials, server.url)
        let writing = true
        let writes = 0
        const writer = (async () => {
          for (let i = 0; writing && i < 2000; i++) {
            await putSecret(server.url, token, 'dev', `LIVE_${i % 5}`, `live-${i}`)
            writes++
          }
        })()
        while (writes < 20) await new Promise((resolve) => setTimeout(resolve, 10))
        const archive = join(work, `${engine}.jsonl.gz`)
        const before = writes
        const result = await runCli(['backup', '--output', archive], {
          env: { DB_URL: dbUrl, ENCRYPTION_KEY: keys.encryptionKey },
        })
        const during = writes - before
        writing = false
        await writer
        expect(result.exitCode, result.stderr).toBe(0)
        expect(during).toBeGreaterThan(0)

        const kek = Buffer.from(keys.encryptionKey, 'hex')
        const { manifest, tables } = await readArchive(archive, kek)
        const { checked } = await verifyArchive(archive, keys.encryptionKey)
        expect(checked.secretVersions).toBe(manifest.tables.secret_versions!.rows)
        const newest = new Map<string, number>()
        for (const row of tables.secret_versions!) {
          newest.set(
            String(row.secret_id),
            Math.max(newest.get(String(row.secret_id)) ?? 0, Number(row.version)),
          )
        }
        for (const secret of tables.secrets!)
          expect(Number(secret.version)).toBe(newest.get(String(secret.id)))
        const liveVersions = tables.secrets!.filter((secret) => String(secret.name).startsWith('LIVE_'))
        expect(liveVersions.length).toBeGreaterThan(0)
      } finally {
        await server.stop()
      }
    },
  )
})
