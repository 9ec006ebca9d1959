/**
 * The versioned schema, written once for both engines (TEXT, INTEGER, ISO text timestamps, base64 text
 * ciphertexts) so every table exports as JSON rows and imports into either engine. `migrate` applies
 * what is missing under an exclusive lock and refuses a database newer than this binary.
 */
import { IntegrityError } from '../../errors.js'
import type { SqlDriver } from './driver.js'

interface Migration {
  version: number
  statements: string[]
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
]

/** The schema version this binary writes. */
export const schemaVersion = migrations.at(-1)!.version

/** Every table in dependency order, for engine-neutral export and import (backup). */
export const tablesInOrder = [
  'meta',
  'root_keys',
  'admins',
  'projects',
  'data_keys',
  'environments',
  'identities',
  'access_tokens',
  'secrets',
  'secret_versions',
  'audit_events',
  'audit_head',
  'webhooks',
  'webhook_outbox',
] as const

/** Applies missing migrations; refuses a database whose schema is newer than this binary. */
export async function migrate(driver: SqlDriver): Promise<number> {
  return driver.exclusive('vault:migrate', async (tx) => {
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
      await tx.run(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, [
        migration.version,
        new Date().toISOString(),
      ])
    }
    return schemaVersion
  })
}
