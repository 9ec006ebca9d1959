/**
 * Upgrading a schema-1 database (before row MACs) on SQLite and PostgreSQL: the vault opened with its
 * ENCRYPTION_KEY binds every client-secret hash to its identity, seals every protected row and the
 * audit head in the migration's transaction, after which both identities still log in with their
 * old secrets and the full integrity check passes. Without the key the upgrade is refused and the
 * database stays at schema 1. The schema-1 database is made by taking a current one back: the
 * columns dropped, the hashes recomputed the way schema 1 computed them.
 */
import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { deriveKey, open } from '../../src/crypto/envelope.js'
import { adminVerifyAudit } from '../../src/server/admin.js'
import { openDriver } from '../../src/server/store/index.js'
import { openStore } from '../../src/server/migrations.js'
import { unavailableReason } from '../helpers/components.js'
import { engines, startVictim } from './adversarial/backup/victim.js'
import { login, readSecret, startVault } from './backup-fixture.js'

const work = mkdtempSync(join(tmpdir(), 'vault-upgrade-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe.each(engines)('schema 1 to 3 on $name', (engine) => {
  it.skipIf(!engine.available)(
    `upgrades with the key, refuses without it (postgres: ${unavailableReason('postgres')})`,
    async () => {
      const { vault, victim } = await startVictim(engine, work)
      await vault.close()
      const raw = openDriver(victim.dbUrl)
      try {
        await raw.transaction(async (tx) => {
          const [rootRow] = await tx.all<{ wrapped: string }>(
            `SELECT wrapped FROM root_keys WHERE version = 1`,
          )
          const root = open(Buffer.from(victim.keyHex, 'hex'), rootRow!.wrapped, 'vault-root-key')
          const unbound = (secret: string) =>
            createHmac('sha256', deriveKey(root, 'client-secret-hash')).update(secret).digest('hex')
          // the columns first: PostgreSQL refuses ALTER TABLE on a table whose rows this transaction
          // changed while their deferred generation triggers are pending (store/pg-generation.ts)
          for (const table of ['identities', 'secrets', 'webhooks']) {
            await tx.run(`ALTER TABLE ${table} DROP COLUMN row_mac`)
          }
          await tx.run(`ALTER TABLE audit_head DROP COLUMN mac`)
          // schema 5 (credential stamps on tokens and sessions) too
          await tx.run(`ALTER TABLE access_tokens DROP COLUMN secret_stamp`)
          // schema 3 (human accounts with roles and row MACs, sign-in sessions) rolled back as well
          await tx.run(`DROP TABLE human_sessions`)
          await tx.run(`ALTER TABLE admins DROP COLUMN row_mac`)
          await tx.run(`ALTER TABLE admins DROP COLUMN role`)
          // schema 4 (template flags of secret versions) rolled back as well
          await tx.run(`ALTER TABLE secret_versions DROP COLUMN template`)
          // schema 6 (OIDC trust of identities, used OIDC token ids) too
          await tx.run(`DROP TABLE oidc_used_tokens`)
          await tx.run(`ALTER TABLE identities DROP COLUMN oidc_trust`)
          // schema 7 (plain flags of secret versions) rolled back as well
          await tx.run(`ALTER TABLE secret_versions DROP COLUMN plain`)
          for (const [id, secret] of [
            [victim.names.deploymentId, victim.deployment.clientSecret],
            [victim.names.readerId, victim.reader.clientSecret],
          ] as const) {
            await tx.run(`UPDATE identities SET secret_hash = ? WHERE id = ?`, [unbound(secret), id])
          }
          await tx.run(`DELETE FROM schema_migrations WHERE version >= 2`)
        })
      } finally {
        await raw.close()
      }

      await expect(openStore(victim.dbUrl)).rejects.toMatchObject({
        code: 'ERR_NOT_CONFIGURED',
        message: expect.stringMatching(/needs ENCRYPTION_KEY to be upgraded to schema version 2/),
      })
      const check = openDriver(victim.dbUrl)
      try {
        const [row] = await check.transaction((tx) =>
          tx.all(`SELECT MAX(version) AS version FROM schema_migrations`),
        )
        expect(Number(row!.version)).toBe(1)
      } finally {
        await check.close()
      }

      const upgraded = await startVault(victim.dbUrl, victim.keyHex)
      try {
        const deployment = await login(upgraded.url, victim.deployment)
        expect(deployment.status).toBe(200)
        expect((await login(upgraded.url, victim.reader)).status).toBe(200)
        expect(await readSecret(upgraded.url, deployment.token!, 'dev', 'DB_PASSWORD')).toBe('third-value')
      } finally {
        await upgraded.close()
      }
      const report = await adminVerifyAudit({ dbUrl: victim.dbUrl, encryptionKey: victim.keyHex })
      expect(report).toMatchObject({ ok: true, tamperedRows: [], unauditedVersions: [] })
    },
  )

  it.skipIf(!engine.available)(
    'adds the OIDC trust (schema 6) without the key, and every identity sealed before keeps its MAC',
    async () => {
      const { vault, victim } = await startVictim(engine, work)
      await vault.close()
      const raw = openDriver(victim.dbUrl)
      try {
        await raw.transaction(async (tx) => {
          await tx.run(`DROP TABLE oidc_used_tokens`)
          await tx.run(`ALTER TABLE identities DROP COLUMN oidc_trust`)
          // schema 7 (plain flags of secret versions) came after it: rolled back too
          await tx.run(`ALTER TABLE secret_versions DROP COLUMN plain`)
          await tx.run(`DELETE FROM schema_migrations WHERE version >= 6`)
        })
      } finally {
        await raw.close()
      }
      await (await openStore(victim.dbUrl)).close()
      const report = await adminVerifyAudit({ dbUrl: victim.dbUrl, encryptionKey: victim.keyHex })
      expect(report).toMatchObject({ ok: true, tamperedRows: [] })
      const upgraded = await startVault(victim.dbUrl, victim.keyHex)
      try {
        expect((await login(upgraded.url, victim.deployment)).status).toBe(200)
      } finally {
        await upgraded.close()
      }
    },
  )
})
