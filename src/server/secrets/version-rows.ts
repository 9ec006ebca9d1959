/**
 * Read-only queries over secret versions: the live secrets of an environment with their current
 * sealed value, a secret's version history, and when one version was written.
 */
import type { SqlExecutor, SqlValue } from '../store/index.js'
import { identityNames } from '../identity-names.js'

/**
 * The live secrets of an environment as rows `[name, version, created_at, updated_at, ciphertext,
 * key_version, template, plain]`, by name (arrays: cheaper than objects for many rows).
 */
export function liveSecretRows(
  tx: SqlExecutor,
  environment: { projectId: string; environment: string },
): Promise<SqlValue[][]> {
  return tx.values(
    `SELECT s.name, s.version, s.created_at, s.updated_at, v.ciphertext, v.key_version, v.template, v.plain
     FROM secrets s JOIN secret_versions v ON v.secret_id = s.id AND v.version = s.version
     WHERE s.project_id = ? AND s.environment = ? AND s.deleted = 0 ORDER BY s.name`,
    [environment.projectId, environment.environment],
  )
}

/** The version history of a secret, oldest first (no values). */
export async function listVersionRows(tx: SqlExecutor, secretId: string) {
  const rows = await tx.all<{ version: number; created_at: string; actor: string; deleted: number }>(
    `SELECT version, created_at, actor, deleted FROM secret_versions WHERE secret_id = ? ORDER BY version`,
    [secretId],
  )
  const names = await identityNames(
    tx,
    rows.map((row) => row.actor),
  )
  return rows.map((row) => ({
    version: Number(row.version),
    createdAt: row.created_at,
    actor: row.actor,
    ...(names.has(row.actor) ? { actorName: names.get(row.actor)! } : {}),
    deleted: Boolean(Number(row.deleted)),
  }))
}

/** When version `version` of a secret was written, or undefined when it has no such version. */
export async function versionCreatedAt(
  tx: SqlExecutor,
  secretId: string,
  version: number,
): Promise<string | undefined> {
  const [row] = await tx.all<{ created_at: string }>(
    `SELECT created_at FROM secret_versions WHERE secret_id = ? AND version = ?`,
    [secretId, version],
  )
  return row?.created_at
}
