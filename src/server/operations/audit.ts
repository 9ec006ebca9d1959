/**
 * Admin operations on the audit log: list events (of one project or all) and verify the whole store
 * (hash chain and signed head, row MACs, every secret version's audit event). Admins only; a human's
 * verification is itself audited.
 */
import { appendAudit, listAudit, type AuditRecord } from '../audit/audit.js'
import { checkStoreIntegrity, type IntegrityReport } from '../keys/integrity.js'
import { hostAdmin } from '../humans/actor.js'
import { identityNames } from '../identity-names.js'
import { requireAdmin, runOperation, type AdminCall } from './call.js'

/** Events after `afterSeq` (at most `limit`, 1 to 1000), oldest first. */
export function listAuditOp(
  call: AdminCall,
  input: { project?: string; afterSeq?: number; limit?: number; newest?: boolean },
): Promise<AuditRecord[]> {
  return runOperation(call, { action: 'audit.list', project: input.project, read: true }, (tx, projectId) =>
    listAudit(tx, {
      projectId,
      afterSeq: input.afterSeq ?? 0,
      limit: input.limit ?? 100,
      newest: input.newest,
    }),
  )
}

/** `vault audit list`: the events with each `identity:ID` actor's identity name (when it still exists). */
export async function listAuditNamedOp(
  call: AdminCall,
  input: { project?: string; afterSeq?: number; limit?: number; newest?: boolean },
): Promise<(AuditRecord & { actorName?: string })[]> {
  return runOperation(
    call,
    { action: 'audit.list', project: input.project, read: true },
    async (tx, projectId) => {
      const events = await listAudit(tx, {
        projectId,
        afterSeq: input.afterSeq ?? 0,
        limit: input.limit ?? 100,
        newest: input.newest,
      })
      const names = await identityNames(
        tx,
        events.map((event) => event.actor),
      )
      return events.map((event) =>
        names.has(event.actor) ? { ...event, actorName: names.get(event.actor)! } : event,
      )
    },
  )
}

/**
 * The integrity report of the store (never throws for a finding). The audit chain is walked whole,
 * or with `incremental` (a view) from the last point this process verified.
 */
export async function verifyAuditOp(
  call: AdminCall,
  options: { incremental?: boolean } = {},
): Promise<IntegrityReport> {
  await requireAdmin(call, { action: 'audit.verify' })
  const verifier = call.vault.auditVerifier
  const report = await checkStoreIntegrity(call.vault.driver, call.vault.keyring, {
    chain: verifier ? () => verifier.verify({ full: !options.incremental }) : undefined,
  })
  if (call.actor.label !== hostAdmin.label) {
    await call.vault.driver.transaction((tx) =>
      appendAudit(tx, call.vault.keyring.auditKey, {
        projectId: null,
        actor: call.actor.label,
        action: 'audit.verify',
        result: 'ok',
        requestId: call.origin?.requestId ?? null,
        ip: call.origin?.ip ?? null,
        detail: report.ok ? 'chain intact' : 'findings',
      }),
    )
  }
  return report
}
