/**
 * The human-readable lines of `vault backup` and `vault restore` (plain text; the commands decide
 * stdout or stderr). Names and counts only, never a value.
 */
import type { BackupResult } from './backup.js'
import { defaultInflateLimits } from './inflate-lines.js'
import type { RestoreResult } from './restore.js'
import type { VerifyResult } from './verify.js'

/** The reminder printed after every backup: the key is not in the archive. */
const keyReminder =
  'Reminder: ENCRYPTION_KEY is NOT in this archive and the archive cannot be restored without it. ' +
  'Keep a copy of the key apart from the archive (a password manager, not the same disk or bucket).'

/** Summary lines of a finished backup (for stderr). */
export function backupSummary(result: BackupResult): string[] {
  const { manifest } = result
  const count = (table: string) => manifest.tables[table]?.rows ?? 0
  const lines = [
    `Backup written: ${result.path} (${formatBytes(result.bytes)}, mode 600, sha256 ${result.sha256.slice(0, 16)}…)`,
    `  schema ${manifest.schemaVersion}, vault ${manifest.appVersion}, from ${manifest.engine}, key fingerprint ${manifest.keyFingerprint ?? 'none'}`,
    `  ${plural(count('secrets'), 'secret')}, ${plural(count('secret_versions'), 'version')}, ` +
      `${plural(count('identities'), 'identity', 'identities')}, ${plural(count('audit_events'), 'audit event')}`,
  ]
  if (result.inflatedBytes > defaultInflateLimits.maxInflatedBytes) {
    const mib = Math.ceil(result.inflatedBytes / 1024 / 1024)
    lines.push(
      `Warning: this archive inflates to ${mib} MiB, over the ${defaultInflateLimits.maxInflatedBytes / 1024 / 1024} MiB that vault restore accepts by default; restore it with --max-inflated-mib ${mib}`,
    )
  }
  for (const copy of result.copies) {
    lines.push(`Copied to ${copy.path} and verified (sha256 matches, archive reads back complete)`)
    if (copy.sameDeviceAsDatabase) {
      lines.push(`Warning: ${copy.path} is on the same device as the database; a disk loss takes both`)
    }
  }
  lines.push(keyReminder)
  return lines
}

/** Lines listing what a verified archive holds (for stdout). */
export function verifyListing(result: VerifyResult): string[] {
  const { manifest } = result
  const lines = [
    `Archive ${result.file}: OK (MAC and checksums match; ${formatBytes(result.bytes)})`,
    `  format ${manifest.formatVersion}, schema ${manifest.schemaVersion}, vault ${manifest.appVersion}, ` +
      `taken ${manifest.createdAt} from ${manifest.engine}, key fingerprint ${manifest.keyFingerprint ?? 'none'}`,
    `  ENCRYPTION_KEY matches; ${result.checked.secretVersions} secret versions decrypt; audit chain of ${result.checked.auditEvents} events verifies; protected rows check out`,
    'Tables:',
    ...Object.entries(manifest.tables).map(([table, summary]) => `  ${table.padEnd(16)} ${summary.rows}`),
    'Secrets:',
  ]
  for (const group of result.environments) {
    lines.push(`  ${group.project} / ${group.environment}: ${plural(group.secrets.length, 'secret')}`)
    for (const secret of group.secrets) {
      const deleted = secret.deleted ? ' (deleted)' : ''
      lines.push(
        `    ${secret.name}  ${secret.versions} version${secret.versions === 1 ? '' : 's'}${deleted}`,
      )
    }
  }
  return lines
}

/** Summary lines of a finished restore (for stderr). */
export function restoreSummary(result: RestoreResult, vaultStarted = false): string[] {
  const lines = [
    `Restored ${result.file} into ${result.database} (${result.engine}): ` +
      `${result.checked.secretVersions} secret versions decrypt, audit chain of ${result.checked.auditEvents} events verifies`,
  ]
  const kept = result.keptRevocations
  if (kept) {
    lines.push(
      `Kept what the replaced database retired after the backup: ${kept.identitiesRevoked} identities revoked, ` +
        `${kept.secretsRotated} client secrets rotated, ${kept.tokensRevoked} tokens revoked, ` +
        `${kept.passwordsChanged} passwords changed, ${kept.accountsRemoved} accounts removed`,
    )
  }
  if (result.previous)
    lines.push(`The previous database is kept as ${result.previous} (delete it when satisfied)`)
  if (!vaultStarted) lines.push('Start (or restart) the vault server so it serves the restored data.')
  return lines
}

/** A byte count for people. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`
}
