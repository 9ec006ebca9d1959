/**
 * `vault restore --verify FILE`: checks an archive completely under ENCRYPTION_KEY (its MAC and
 * checksums, versions, the key fingerprint, a trial decryption of every version, the audit chain and
 * the row MACs) and lists what it holds: projects, environments, secret names with their version
 * counts, table row counts. Never a value. Without the key nothing can be authenticated: refused.
 */
import type { SqlRow } from '../server/store/index.js'
import { readArchive } from './archive-read.js'
import { checkKeyMatches, checkArchiveData, readEncryptionKey, type DataCheckSummary } from './data-checks.js'
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

/** Checks the archive at `file` under ENCRYPTION_KEY and lists its contents. */
export async function verifyArchive(file: string, encryptionKey: string | undefined): Promise<VerifyResult> {
  const kek = readEncryptionKey(encryptionKey)
  const archive = await readArchive(file, kek)
  checkKeyMatches(archive.manifest, archive.tables, kek)
  const checked = await checkArchiveData(archive.tables, kek)
  return {
    file,
    bytes: archive.bytes,
    manifest: archive.manifest,
    environments: listEnvironments(archive.tables),
    checked,
  }
}

/** Secret names and version counts per project and environment (no values). */
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
      versions: versionCounts.get(String(secret.id)) ?? 0,
      deleted: Number(secret.deleted ?? 0) !== 0,
    })
  }
  const sorted = [...groups.values()].sort((a, b) =>
    `${a.project}\0${a.environment}`.localeCompare(`${b.project}\0${b.environment}`),
  )
  for (const group of sorted) group.secrets.sort((a, b) => a.name.localeCompare(b.name))
  return sorted
}
