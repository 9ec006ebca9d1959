/**
 * `vault restore --verify FILE`: checks an archive completely under ENCRYPTION_KEY (its MAC and
 * checksums, versions, the key fingerprint, a trial decryption of every version, the audit chain and
 * the row MACs) and lists what it holds: projects, environments, secret names with their version
 * counts, table row counts. Never a value. Without the key nothing can be authenticated: refused.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SqlDriver, SqlRow } from '../server/store/index.js'
import { migrate } from '../server/migrations.js'
import { openSqlite } from '../server/store/sqlite.js'
import { authenticateArchive } from './archive-read.js'
import { checkStoreData, readEncryptionKey, type DataCheckSummary } from './data-checks.js'
import { inflateLimitsOf } from './inflate-lines.js'
import { loadArchive } from './load-archive.js'
import type { BackupManifest } from './manifest.js'

export interface ArchiveSecret {
  name: string
  versions: number
  deleted: boolean
}

export interface ArchiveEnvironment {
  project: string
  environment: string
  secrets: ArchiveSecret[]
}

export interface VerifyResult {
  file: string
  bytes: number
  manifest: BackupManifest
  environments: ArchiveEnvironment[]
  /** The trial decryption and integrity check. */
  checked: DataCheckSummary
}

/**
 * Checks the archive at `file` under ENCRYPTION_KEY and lists its contents. The rows stream into a
 * throwaway SQLite file in a private temporary directory (on disk, so a large archive does not grow
 * the process), where the server's own checks run.
 */
export async function verifyArchive(
  file: string,
  encryptionKey: string | undefined,
  maxInflatedMib?: number,
): Promise<VerifyResult> {
  const kek = readEncryptionKey(encryptionKey)
  const archive = await authenticateArchive(file, kek, inflateLimitsOf(maxInflatedMib))
  const directory = await mkdtemp(join(tmpdir(), 'vault-verify-'))
  const store = openSqlite(join(directory, 'check.db'))
  try {
    await migrate(store)
    await store.transaction((tx) => loadArchive(tx, archive, kek))
    const checked = await checkStoreData(store, kek)
    return {
      file,
      bytes: archive.bytes,
      manifest: archive.manifest,
      environments: listEnvironments(await listingTables(store)),
      checked,
    }
  } finally {
    await store.close()
    await rm(directory, { recursive: true, force: true })
  }
}

/** The rows the listing needs, with each secret's version count (`version_count`) counted in SQL. */
async function listingTables(store: SqlDriver): Promise<Record<string, SqlRow[]>> {
  return store.transaction(async (tx) => ({
    projects: await tx.all(`SELECT id, name FROM projects`),
    environments: await tx.all(`SELECT project_id, slug FROM environments`),
    secrets: await tx.all(
      `SELECT s.id, s.project_id, s.environment, s.name, s.deleted, COUNT(v.version) AS version_count
         FROM secrets s LEFT JOIN secret_versions v ON v.secret_id = s.id
        GROUP BY s.id, s.project_id, s.environment, s.name, s.deleted`,
    ),
  }))
}

/**
 * Secret names and version counts per project and environment (no values); a secret row's
 * `version_count`, when present, stands for counting its `secret_versions` rows.
 */
export function listEnvironments(tables: Record<string, SqlRow[]>): ArchiveEnvironment[] {
  const projectNames = new Map((tables.projects ?? []).map((row) => [String(row.id), String(row.name)]))
  const versionCounts = new Map<string, number>()
  for (const row of tables.secret_versions ?? []) {
    const id = String(row.secret_id)
    versionCounts.set(id, (versionCounts.get(id) ?? 0) + 1)
  }
  const groups = new Map<string, ArchiveEnvironment>()
  for (const environment of tables.environments ?? []) {
    const project = projectNames.get(String(environment.project_id)) ?? String(environment.project_id)
    groups.set(`${environment.project_id}\0${environment.slug}`, {
      project,
      environment: String(environment.slug),
      secrets: [],
    })
  }
  for (const secret of tables.secrets ?? []) {
    const key = `${secret.project_id}\0${secret.environment}`
    let group = groups.get(key)
    if (!group) {
      group = { project: String(secret.project_id), environment: String(secret.environment), secrets: [] }
      groups.set(key, group)
    }
    group.secrets.push({
      name: String(secret.name),
      versions:
        secret.version_count === undefined
          ? (versionCounts.get(String(secret.id)) ?? 0)
          : Number(secret.version_count),
      deleted: Number(secret.deleted ?? 0) !== 0,
    })
  }
  const sorted = [...groups.values()].sort((a, b) =>
    `${a.project}\0${a.environment}`.localeCompare(`${b.project}\0${b.environment}`),
  )
  for (const group of sorted) group.secrets.sort((a, b) => a.name.localeCompare(b.name))
  return sorted
}
