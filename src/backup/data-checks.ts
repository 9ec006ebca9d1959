/**
 * The checks on the data of an archive or of a restored database that need the key: the configured
 * ENCRYPTION_KEY against the fingerprint the data records, and a trial decryption of every secret
 * version (through the server's own key hierarchy code), plus the audit chain when it can be checked.
 * Errors say which check failed, never a value or key material.
 */
import { keyFingerprint, parseHexKey } from '../crypto/envelope.js'
import { IntegrityError, NotConfiguredError } from '../errors.js'
import type { SqlRow } from '../server/store/index.js'
import type { BackupManifest } from './manifest.js'
import { trialDecryptVersions, verifyAuditRows } from './server-crypto.js'

export interface DataCheckSummary {
  /** Secret versions that decrypted under the configured key. */
  secretVersions: number
  /** Audit events whose chain verified. */
  auditEvents: number
}

/** Parses ENCRYPTION_KEY; a missing one is NotConfigured (it is never in the archive). */
export function readEncryptionKey(text: string | undefined): Buffer {
  if (text === undefined || text.trim() === '') {
    throw new NotConfiguredError('ENCRYPTION_KEY is not set; it is needed to check and restore a backup', {
      hint: 'set ENCRYPTION_KEY to the key the backed-up vault ran with (it is kept apart from the archive)',
    })
  }
  return parseHexKey(text, 'ENCRYPTION_KEY')
}

/** The key fingerprint recorded in the `meta` table of a snapshot, or null. */
export function recordedFingerprint(tables: Record<string, SqlRow[]>): string | null {
  const row = (tables.meta ?? []).find((candidate) => candidate.key === fingerprintMetaKey)
  return row ? String(row.value) : null
}

/** Whether a hex ENCRYPTION_KEY matches a recorded fingerprint (false for an unparseable key). */
export function keyMatchesRecorded(fingerprint: string | null, encryptionKey: string): boolean {
  try {
    return fingerprint !== null && keyFingerprint(parseHexKey(encryptionKey, 'ENCRYPTION_KEY')) === fingerprint
  } catch {
    return false
  }
}

/** Refuses when the key's fingerprint differs from the one the archive records. */
export function checkKeyMatches(manifest: BackupManifest, tables: Record<string, SqlRow[]>, kek: Buffer): void {
  const recorded = recordedFingerprint(tables)
  if (recorded === null || manifest.keyFingerprint !== recorded) {
    throw new IntegrityError('the archive records no usable key fingerprint; nothing was changed', {
      hint: 'this archive was not written by vault backup from an initialised vault',
    })
  }
  const actual = keyFingerprint(kek)
  if (actual !== recorded) {
    throw new IntegrityError(
      `ENCRYPTION_KEY does not match this archive (expects fingerprint ${recorded}, got ${actual}); nothing was changed`,
      { hint: 'set ENCRYPTION_KEY to the key the backed-up vault ran with' },
    )
  }
}

/** Trial-decrypts every secret version and verifies the audit chain of `tables` under `kek`. */
export async function checkRestoredData(tables: Record<string, SqlRow[]>, kek: Buffer): Promise<DataCheckSummary> {
  const secretVersions = await trialDecryptVersions(tables, kek)
  const auditEvents = await verifyAuditRows(tables, kek)
  return { secretVersions, auditEvents }
}
