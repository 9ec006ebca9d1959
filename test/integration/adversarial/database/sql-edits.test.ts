/**
 * Edits made directly in SQL, by someone with write access to the database but not ENCRYPTION_KEY,
 * on SQLite and PostgreSQL. One row per attack, with the property checked: the server refuses to
 * start on the edited database (IntegrityError, exit 8) naming what was edited, and `vault audit
 * verify` (its admin function) reports it; for the attacks that only the full check sees, start-up
 * still works and `audit verify` reports.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ExitCode } from '../../../../src/errors.js'
import { adminVerifyAudit } from '../../../../src/server/admin.js'
import { integrityProblems } from '../../../../src/server/keys/integrity.js'
import { sealRow } from '../../../../src/server/keys/row-mac.js'
import { openDriver, type SqlValue } from '../../../../src/server/store/index.js'
import { createWebhook } from '../../../../src/server/webhooks/webhooks.js'
import { revokeIdentity } from '../../../../src/server/identities.js'
import { unavailableReason } from '../../../helpers/components.js'
import { login, putSecret, readSecret, startVault, type RunningVault } from '../../backup-fixture.js'
import { engines, startVictim, type Victim } from '../backup/victim.js'

const work = mkdtempSync(join(tmpdir(), 'vault-sql-edits-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface SqlEdit {
  attack: string
  /** Extra set-up on the running victim before the edit (a webhook, a revocation, a saved head). */
  prepare?: (vault: RunningVault, victim: Victim) => Promise<Record<string, SqlValue>>
  /** The statements the attacker runs, with the values prepare returned. */
  statements: (victim: Victim, prepared: Record<string, SqlValue>) => [string, SqlValue[]][]
  /** What the refused start-up says, or null when only the full check sees it. */
  startup: RegExp | null
  /** What `vault audit verify` reports. */
  verify: RegExp
}

const edits: SqlEdit[] = [
  {
    attack: 'role escalation: the read-only identity made admin on every environment',
    statements: (victim) => [
      [
        `UPDATE identities SET permissions = ? WHERE id = ?`,
        ['{"dev":["read","write","admin"],"prod":["read","write","admin"]}', victim.names.readerId],
      ],
    ],
    startup: /identities row .* fails its MAC/,
    verify: /identities row .* fails its MAC/,
  },
  {
    attack: "copied client-secret hash: the deployment identity's hash and row MAC given to the reader",
    statements: (victim) => [
      [
        `UPDATE identities SET secret_hash = (SELECT secret_hash FROM identities WHERE id = ?),
           row_mac = (SELECT row_mac FROM identities WHERE id = ?) WHERE id = ?`,
        [victim.names.deploymentId, victim.names.deploymentId, victim.names.readerId],
      ],
    ],
    startup: /identities row .* fails its MAC/,
    verify: /identities row .* fails its MAC/,
  },
  {
    attack: 'version pointer rollback: the secret pointed back to version 1',
    statements: () => [[`UPDATE secrets SET version = 1 WHERE name = 'DB_PASSWORD'`, []]],
    startup: /secrets row .* fails its MAC/,
    verify: /secrets row .* fails its MAC/,
  },
  {
    attack: 'webhook redirected to the metadata address',
    prepare: async (vault, victim) => {
      const hook = await vault.context.driver.transaction((tx) =>
        createWebhook(tx, vault.context.keyring, {
          projectId: victim.deployment.projectId,
          url: 'http://127.0.0.1:9/vault-hook',
          allowPrivate: true,
        }),
      )
      return { id: hook.id }
    },
    statements: (_victim, prepared) => [
      [`UPDATE webhooks SET url = 'http://169.254.169.254/latest' WHERE id = ?`, [prepared.id!]],
    ],
    startup: /webhooks row .* fails its MAC/,
    verify: /webhooks row .* fails its MAC/,
  },
  {
    attack: 'a revoked identity revived',
    prepare: async (vault, victim) => {
      await vault.context.driver.transaction((tx) =>
        revokeIdentity(tx, vault.context.keyring, victim.deployment.projectId, 'reader'),
      )
      return {}
    },
    statements: (victim) => [
      [`UPDATE identities SET revoked_at = NULL WHERE id = ?`, [victim.names.readerId]],
    ],
    startup: /identities row .* fails its MAC/,
    verify: /identities row .* fails its MAC/,
  },
  {
    attack: 'audit tail truncated, the head copied from the last event kept',
    statements: () => [
      [`DELETE FROM audit_events WHERE seq > (SELECT MAX(seq) - 3 FROM audit_events)`, []],
      [
        `UPDATE audit_head SET seq = (SELECT MAX(seq) FROM audit_events),
           hash = (SELECT hash FROM audit_events WHERE seq = (SELECT MAX(seq) FROM audit_events))`,
        [],
      ],
    ],
    startup: /the audit head fails its MAC/,
    verify: /the audit head fails its MAC/,
  },
  {
    attack: 'audit log wiped (every event and the head)',
    statements: () => [
      [`DELETE FROM audit_events`, []],
      [`DELETE FROM audit_head`, []],
    ],
    startup: /the audit head is missing/,
    verify: /the audit head is missing/,
  },
  {
    attack: 'audit tail cut back to a head row saved earlier (its MAC replayed) after a secret write',
    prepare: async (vault, victim) => {
      const [head] = await vault.context.driver.transaction((tx) =>
        tx.all(`SELECT seq, hash, mac FROM audit_head WHERE id = 1`),
      )
      const { token } = await login(vault.url, victim.deployment)
      await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', 'fourth-value')
      return { seq: head!.seq!, hash: head!.hash!, mac: head!.mac! }
    },
    statements: (_victim, saved) => [
      [`DELETE FROM audit_events WHERE seq > ?`, [saved.seq!]],
      [
        `UPDATE audit_head SET seq = ?, hash = ?, mac = ? WHERE id = 1`,
        [saved.seq!, saved.hash!, saved.mac!],
      ],
    ],
    startup: null,
    verify: /DB_PASSWORD version 4 \(dev\) has no audit event/,
  },
  {
    attack: 'a secret version inserted in SQL (no audit event)',
    statements: () => [
      [
        `INSERT INTO secret_versions (secret_id, version, ciphertext, key_version, actor, deleted, created_at)
           SELECT secret_id, 99, ciphertext, key_version, actor, deleted, created_at FROM secret_versions
            WHERE version = 1 AND secret_id = (SELECT id FROM secrets WHERE name = 'DB_PASSWORD')`,
        [],
      ],
    ],
    startup: null,
    verify: /DB_PASSWORD version 99 \(dev\) has no audit event/,
  },
]

describe.each(engines)('SQL edits of the live database on $name', (engine) => {
  it.skipIf(!engine.available).each(edits)(
    `$attack (postgres: ${unavailableReason('postgres')})`,
    async ({ prepare, statements, startup, verify }) => {
      const { vault, victim } = await startVictim(engine, work)
      let prepared: Record<string, SqlValue> = {}
      try {
        prepared = (await prepare?.(vault, victim)) ?? {}
      } finally {
        await vault.close()
      }
      const raw = openDriver(victim.dbUrl)
      try {
        await raw.transaction(async (tx) => {
          for (const [sql, params] of statements(victim, prepared)) await tx.run(sql, params)
        })
      } finally {
        await raw.close()
      }

      const started = await startVault(victim.dbUrl, victim.keyHex).catch((error: unknown) => error)
      if (startup) {
        expect(started).toMatchObject({ code: 'ERR_INTEGRITY', exitCode: ExitCode.integrity })
        expect((started as Error).message).toMatch(/changed outside the vault; refusing to serve it/)
        expect((started as Error).message).toMatch(startup)
      } else {
        expect(started).not.toBeInstanceOf(Error)
        await (started as RunningVault).close()
      }
      const report = await adminVerifyAudit({ dbUrl: victim.dbUrl, encryptionKey: victim.keyHex })
      expect(report.ok).toBe(false)
      expect(integrityProblems(report).join('\n')).toMatch(verify)
    },
  )

  it.skipIf(!engine.available)(
    'a client-secret hash copied to another identity does not log in even with a valid row MAC',
    async () => {
      const { vault, victim } = await startVictim(engine, work)
      try {
        await vault.context.driver.transaction(async (tx) => {
          await tx.run(
            `UPDATE identities SET secret_hash = (SELECT secret_hash FROM identities WHERE id = ?) WHERE id = ?`,
            [victim.names.deploymentId, victim.names.readerId],
          )
          await sealRow(tx, vault.context.keyring.rowMacKey, 'identities', victim.names.readerId)
        })
        const asReader = { ...victim.reader, clientSecret: victim.deployment.clientSecret }
        expect((await login(vault.url, asReader)).status).toBe(401)
        const { token } = await login(vault.url, victim.deployment)
        expect(await readSecret(vault.url, token!, 'dev', 'DB_PASSWORD')).toBe('third-value')
      } finally {
        await vault.close()
      }
    },
  )
})
