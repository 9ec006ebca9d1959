/**
 * The integrity check of a whole vault database under its keys: the audit chain and its MAC'd head,
 * the row MACs of the security-relevant rows, and the cross-check that every secret version has the
 * audit event that wrote it. `vault audit verify` and restore run it fully; the server runs the cheap
 * part (row MACs and the audit head) at start-up and refuses to serve a database edited in SQL.
 */
import { IntegrityError } from '../../errors.js'
import { paceRows } from '../../process/gc-pacer.js'
import { checkAuditHead, verifyAuditChain, type AuditVerification } from '../audit/audit-verify.js'
import { findTamperedRows, type RowMacFailure } from './row-mac.js'
import type { SqlDriver, SqlExecutor } from '../store/index.js'

/** The keys the check needs (a loaded Keyring provides them). */
export interface IntegrityKeys {
  readonly auditKey: Buffer
  readonly rowMacKey: Buffer
}

/** A secret version with no audit event that wrote it. */
export interface UnauditedVersion {
  projectId: string
  environment: string
  name: string
  version: number
}

export interface IntegrityReport {
  ok: boolean
  audit: AuditVerification
  tamperedRows: RowMacFailure[]
  unauditedVersions: UnauditedVersion[]
}

const writeActions = ['secret.create', 'secret.update', 'secret.delete', 'secret.rollback']
const pageSize = 1000
/** `version 3` (create, update, delete) or `to version 1 as version 4` (rollback). */
const writtenVersion = /(?:^|as )version (\d+)$/

/**
 * Runs every check on `driver`; never throws for a finding (see `integrityProblems`). The audit chain
 * is walked whole unless `chain` verifies it another way (audit-verifier.ts: from a verified point).
 */
export async function checkStoreIntegrity(
  driver: SqlDriver,
  keys: IntegrityKeys,
  options: { chain?: () => Promise<AuditVerification> } = {},
): Promise<IntegrityReport> {
  const audit = await (options.chain ?? (() => verifyAuditChain(driver, keys.auditKey)))()
  const { tamperedRows, unauditedVersions } = await driver.transaction(async (tx) => ({
    tamperedRows: await findTamperedRows(tx, keys.rowMacKey),
    unauditedVersions: await findUnauditedVersions(tx),
  }))
  const ok = audit.ok && tamperedRows.length === 0 && unauditedVersions.length === 0
  return { ok, audit, tamperedRows, unauditedVersions }
}

/** One line per finding of a report, for errors and `vault audit verify` (names and ids, never a value). */
export function integrityProblems(report: IntegrityReport): string[] {
  const lines: string[] = []
  if (!report.audit.ok) {
    lines.push(`the audit chain is broken at event ${report.audit.brokenAt}: ${report.audit.reason}`)
  }
  for (const row of report.tamperedRows.slice(0, 20)) {
    lines.push(`${row.table} row ${row.id} fails its MAC (edited outside the vault)`)
  }
  if (report.tamperedRows.length > 20) lines.push(`... and ${report.tamperedRows.length - 20} more rows`)
  for (const version of report.unauditedVersions.slice(0, 20)) {
    lines.push(
      `${version.name} version ${version.version} (${version.environment}) has no audit event (the log was cut or the version inserted in SQL)`,
    )
  }
  if (report.unauditedVersions.length > 20) {
    lines.push(`... and ${report.unauditedVersions.length - 20} more versions without an audit event`)
  }
  return lines
}

/**
 * The start-up check: row MACs and the audit head (cheap; the full chain is `vault audit verify`).
 * Throws an IntegrityError naming what was edited outside the vault.
 */
export async function assertStartupIntegrity(driver: SqlDriver, keys: IntegrityKeys): Promise<void> {
  const problems = await driver.transaction(async (tx) => {
    const lines = (await findTamperedRows(tx, keys.rowMacKey)).map(
      (row) => `${row.table} row ${row.id} fails its MAC`,
    )
    const head = await checkAuditHead(tx, keys.auditKey)
    if (head) lines.push(head)
    return lines
  })
  if (problems.length > 0) {
    throw new IntegrityError(
      `the database was changed outside the vault; refusing to serve it: ${problems.slice(0, 5).join('; ')}` +
        (problems.length > 5 ? `; ... (${problems.length} findings)` : ''),
      {
        hint: 'run vault audit verify for the full list, then restore the database from a backup (vault restore)',
      },
    )
  }
}

/**
 * Versions without the event that wrote them. Both sides are read in pages; what is held is one key
 * per write event (a few dozen bytes each) and the versions found missing.
 */
async function findUnauditedVersions(tx: SqlExecutor): Promise<UnauditedVersion[]> {
  const written = new Set<string>()
  for (let afterSeq = 0; ;) {
    const events = await tx.values(
      `SELECT seq, project_id, environment, target, detail FROM audit_events
        WHERE seq > ? AND result = 'ok' AND action IN (${writeActions.map(() => '?').join(', ')})
        ORDER BY seq LIMIT ?`,
      [afterSeq, ...writeActions, pageSize],
    )
    for (const [, projectId, environment, target, detail] of events) {
      const match = writtenVersion.exec(String(detail ?? ''))
      if (match) written.add(`${projectId}\0${environment}\0${target}\0${match[1]}`)
    }
    paceRows(events.length)
    if (events.length < pageSize) break
    afterSeq = Number(events.at(-1)![0])
  }
  const missing: UnauditedVersion[] = []
  for (let after: [string, number] = ['', 0]; ;) {
    const versions = await tx.values(
      `SELECT v.secret_id, v.version, s.project_id, s.environment, s.name FROM secret_versions v
         JOIN secrets s ON s.id = v.secret_id
        WHERE v.secret_id > ? OR (v.secret_id = ? AND v.version > ?)
        ORDER BY v.secret_id, v.version LIMIT ?`,
      [after[0], after[0], after[1], pageSize],
    )
    for (const [, version, projectId, environment, name] of versions) {
      if (!written.has(`${projectId}\0${environment}\0${name}\0${Number(version)}`)) {
        missing.push({
          projectId: String(projectId),
          environment: String(environment),
          name: String(name),
          version: Number(version),
        })
      }
    }
    paceRows(versions.length)
    if (versions.length < pageSize) break
    const last = versions.at(-1)!
    after = [String(last[0]), Number(last[1])]
  }
  return missing.sort(
    (a, b) =>
      compare(a.projectId, b.projectId) ||
      compare(a.environment, b.environment) ||
      compare(a.name, b.name) ||
      a.version - b.version,
  )
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
