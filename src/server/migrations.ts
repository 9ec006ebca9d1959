/**
 * The versioned schema, written once for both engines (TEXT, INTEGER, ISO text timestamps, base64 text
 * ciphertexts) so every table exports as JSON rows and imports into either engine. `migrate` applies
 * what is missing under an exclusive lock and refuses a database newer than this binary. A migration
 * may also rewrite existing rows with the vault's keys (`upgrade`); on a database that holds data it
 * then needs them, and refuses to run without.
 */
import { IntegrityError, NotConfiguredError } from '../errors.js'
import { auditHeadMac, startAuditChain } from './audit/audit.js'
import { sealAllRows } from './keys/row-mac.js'
import { openDriver } from './store/index.js'
import type { SqlDriver, SqlExecutor } from './store/driver.js'
import { installGenerations } from './store/pg-generation.js'

/** The keys a keyed migration step uses (a loaded Keyring provides them). */
export interface UpgradeKeys {
  readonly rowMacKey: Buffer
  readonly auditKey: Buffer
  bindClientSecretHash(unboundHash: string, identityId: string): string
}

interface Migration {
  version: number
  statements: string[]
  /** Rewrites existing rows with the vault's keys, in the migration's transaction. */
  upgrade?: (tx: SqlExecutor, keys: UpgradeKeys) => Promise<void>
}

/**
 * Schema 2: row MACs on identities, secrets and webhooks, client-secret hashes bound to their identity,
 * a MAC on the audit head (and a head from the start, so a wiped log shows).
 */
async function upgradeToRowMacs(tx: SqlExecutor, keys: UpgradeKeys): Promise<void> {
  const identities = await tx.all<{ id: string; secret_hash: string }>(
    `SELECT id, secret_hash FROM identities`,
  )
  for (const identity of identities) {
    await tx.run(`UPDATE identities SET secret_hash = ? WHERE id = ?`, [
      keys.bindClientSecretHash(identity.secret_hash, identity.id),
      identity.id,
    ])
  }
  await sealAllRows(tx, keys.rowMacKey, ['identities', 'secrets', 'webhooks'])
  const [head] = await tx.all<{ seq: number; hash: string }>(`SELECT seq, hash FROM audit_head WHERE id = 1`)
  if (head) {
    await tx.run(`UPDATE audit_head SET mac = ? WHERE id = 1`, [
      auditHeadMac(keys.auditKey, Number(head.seq), head.hash),
    ])
  } else {
    const [events] = await tx.all<{ count: number }>(`SELECT COUNT(*) AS count FROM audit_events`)
    if (Number(events?.count ?? 0) === 0) await startAuditChain(tx, keys.auditKey)
  }
}

/** Schema 3: human accounts get a role (the existing account is an admin) and a row MAC. */
async function sealHumanAccounts(tx: SqlExecutor, keys: UpgradeKeys): Promise<void> {
  await sealAllRows(tx, keys.rowMacKey, ['admins'])
}

const migrations: Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      `CREATE TABLE root_keys (version INTEGER PRIMARY KEY, wrapped TEXT NOT NULL, created_at TEXT NOT NULL)`,
      `CREATE TABLE admins (id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL)`,
      `CREATE TABLE projects (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL)`,
      `CREATE TABLE data_keys (project_id TEXT NOT NULL REFERENCES projects(id), version INTEGER NOT NULL,
        root_version INTEGER NOT NULL, wrapped TEXT NOT NULL, created_at TEXT NOT NULL,
        PRIMARY KEY (project_id, version))`,
      `CREATE TABLE environments (project_id TEXT NOT NULL REFERENCES projects(id), slug TEXT NOT NULL,
        name TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (project_id, slug))`,
      `CREATE TABLE identities (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id),
        name TEXT NOT NULL, client_id TEXT NOT NULL UNIQUE, secret_hash TEXT NOT NULL, permissions TEXT NOT NULL,
        failed_logins INTEGER NOT NULL DEFAULT 0, locked_until TEXT, created_at TEXT NOT NULL,
        revoked_at TEXT, UNIQUE (project_id, name))`,
      `CREATE TABLE access_tokens (jti TEXT PRIMARY KEY, identity_id TEXT NOT NULL REFERENCES identities(id),
        issued_at TEXT NOT NULL, expires_at TEXT NOT NULL, revoked_at TEXT)`,
      `CREATE INDEX access_tokens_identity ON access_tokens (identity_id)`,
      `CREATE TABLE secrets (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, environment TEXT NOT NULL,
        name TEXT NOT NULL, version INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (project_id, environment, name),
        FOREIGN KEY (project_id, environment) REFERENCES environments(project_id, slug))`,
      `CREATE TABLE secret_versions (secret_id TEXT NOT NULL REFERENCES secrets(id), version INTEGER NOT NULL,
        ciphertext TEXT, key_version INTEGER, actor TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL, PRIMARY KEY (secret_id, version))`,
      `CREATE TABLE audit_events (seq INTEGER PRIMARY KEY, at TEXT NOT NULL, project_id TEXT,
        environment TEXT, actor TEXT NOT NULL, action TEXT NOT NULL, target TEXT, result TEXT NOT NULL,
        request_id TEXT, ip TEXT, detail TEXT, prev_hash TEXT NOT NULL, hash TEXT NOT NULL)`,
      `CREATE INDEX audit_events_project ON audit_events (project_id, seq)`,
      `CREATE TABLE audit_head (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL)`,
      `CREATE TABLE webhooks (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id),
        url TEXT NOT NULL, sealed_secret TEXT NOT NULL, created_at TEXT NOT NULL, disabled_at TEXT)`,
      `CREATE TABLE webhook_outbox (id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL REFERENCES webhooks(id),
        body TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at TEXT NOT NULL,
        delivered_at TEXT, last_error TEXT, created_at TEXT NOT NULL)`,
      `CREATE INDEX webhook_outbox_due ON webhook_outbox (delivered_at, next_attempt_at)`,
    ],
  },
  {
    version: 2,
    statements: [
      `ALTER TABLE identities ADD COLUMN row_mac TEXT`,
      `ALTER TABLE secrets ADD COLUMN row_mac TEXT`,
      `ALTER TABLE webhooks ADD COLUMN row_mac TEXT`,
      `ALTER TABLE audit_head ADD COLUMN mac TEXT`,
    ],
    upgrade: upgradeToRowMacs,
  },
  {
    version: 3,
    statements: [
      `ALTER TABLE admins ADD COLUMN role TEXT NOT NULL DEFAULT 'admin'`,
      `ALTER TABLE admins ADD COLUMN row_mac TEXT`,
      `CREATE TABLE human_sessions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES admins(id),
        kind TEXT NOT NULL, created_at TEXT NOT NULL, last_seen_at TEXT NOT NULL, expires_at TEXT NOT NULL,
        ended_at TEXT, row_mac TEXT)`,
      `CREATE INDEX human_sessions_user ON human_sessions (user_id)`,
    ],
    upgrade: sealHumanAccounts,
  },
  {
    // secret references (issue 35): a version holds a template whose ${OTHER} the CLI resolves
    version: 4,
    statements: [`ALTER TABLE secret_versions ADD COLUMN template INTEGER NOT NULL DEFAULT 0`],
  },
  {
    // a session and a token carry the stamp of the credential they were opened with (keys/stamp.ts);
    // rows from before have none and are refused: one more sign-in, one more token request
    version: 5,
    statements: [
      `ALTER TABLE human_sessions ADD COLUMN password_stamp TEXT`,
      `ALTER TABLE access_tokens ADD COLUMN secret_stamp TEXT`,
    ],
  },
  {
    // OIDC trust of machine identities (canonical JSON, covered by the row MAC when set, so rows sealed
    // before keep their MAC) and the jtis of the OIDC tokens exchanged, until they expire (replay check)
    version: 6,
    statements: [
      `ALTER TABLE identities ADD COLUMN oidc_trust TEXT`,
      `CREATE TABLE oidc_used_tokens (issuer TEXT NOT NULL, jti TEXT NOT NULL, expires_at TEXT NOT NULL,
        PRIMARY KEY (issuer, jti))`,
      `CREATE INDEX oidc_used_tokens_expiry ON oidc_used_tokens (expires_at)`,
    ],
  },
  {
    // values that are not secrets (issue 35): a version flagged plain (TZ, a domain) is listed and
    // shown unmasked, and never due for rotation
    version: 7,
    statements: [`ALTER TABLE secret_versions ADD COLUMN plain INTEGER NOT NULL DEFAULT 0`],
  },
]

/** The schema version this binary writes. */
export const schemaVersion = migrations.at(-1)!.version

/**
 * Applies missing migrations; refuses a database whose schema is newer than this binary. `keys` (the
 * loaded keyring of an existing vault) lets keyed steps rewrite existing rows; without them such a
 * step runs only on a database that holds no vault data yet.
 */
export async function migrate(driver: SqlDriver, keys?: UpgradeKeys): Promise<number> {
  return driver.exclusive('vault:migrate', async (tx) => {
    // a step may change rows and then ALTER their table: run generation triggers at each statement
    if (driver.engine === 'postgres') await tx.run(`SET CONSTRAINTS ALL IMMEDIATE`)
    await tx.run(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`,
    )
    const [row] = await tx.all<{ version: number | null }>(
      `SELECT MAX(version) AS version FROM schema_migrations`,
    )
    const current = Number(row?.version ?? 0)
    if (current > schemaVersion) {
      throw new IntegrityError(
        `the database has schema version ${current}, newer than this vault (${schemaVersion})`,
        { hint: 'upgrade vault before starting it on this database' },
      )
    }
    for (const migration of migrations.filter((candidate) => candidate.version > current)) {
      for (const statement of migration.statements) await tx.run(statement)
      if (migration.upgrade && keys) await migration.upgrade(tx, keys)
      else if (migration.upgrade && (await holdsVaultData(tx))) {
        throw new NotConfiguredError(
          `the database needs ENCRYPTION_KEY to be upgraded to schema version ${migration.version}; nothing was changed`,
          { hint: 'start vault server (or run vault audit verify) on it once with its ENCRYPTION_KEY' },
        )
      }
      await tx.run(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, [
        migration.version,
        new Date().toISOString(),
      ])
    }
    if (driver.engine === 'postgres') await installGenerations(tx)
    return schemaVersion
  })
}

async function holdsVaultData(tx: SqlExecutor): Promise<boolean> {
  for (const table of ['root_keys', 'admins', 'identities', 'secrets', 'webhooks', 'audit_head']) {
    const [row] = await tx.all(`SELECT 1 AS found FROM ${table} LIMIT 1`)
    if (row) return true
  }
  return false
}

/** Opens the database named by `dbUrl` and brings its schema up to date (the caller of the store migrates it). */
export async function openStore(dbUrl: string): Promise<SqlDriver> {
  const driver = openDriver(dbUrl)
  try {
    await migrate(driver)
  } catch (error) {
    await driver.close()
    throw error
  }
  return driver
}
