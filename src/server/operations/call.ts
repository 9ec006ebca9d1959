/**
 * The frame every admin operation runs in: the vault (store and keys), the actor and its origin. An
 * admin-only operation is checked here first; a refusal is audited (committed) before it is thrown.
 * Each change runs in one transaction with its audit event, so the JSON API, the console and the
 * host's admin CLI all go through the same function.
 */
import { appendAudit } from '../audit/audit.js'
import type { AuditVerifier } from '../audit/audit-verifier.js'
import { ForbiddenError, hostAdmin, type Actor, type ActorOrigin } from '../humans/actor.js'
import { requireProject } from '../identities.js'
import type { Keyring } from '../keys/keyring.js'
import type { SqlDriver, SqlExecutor } from '../store/index.js'

export interface AdminCall {
  /** The store and keys; in the server also its audit verifier (incremental audit views). */
  vault: { driver: SqlDriver; keyring: Keyring; auditVerifier?: AuditVerifier }
  actor: Actor
  origin?: ActorOrigin
}

/** What an operation is, for its audit event. */
export interface OperationName {
  action: string
  target?: string | null
  /** The project's id or name, when the operation is about one project. */
  project?: string
  /** A read: audited for humans, not for the host's admin CLI (which never audited its reads). */
  read?: boolean
  /** Members may do it too (listing projects and environments); otherwise it is for admins. */
  membersMay?: boolean
}

/** Throws ForbiddenError (after auditing the refusal) unless the actor is an admin. */
export async function requireAdmin(call: AdminCall, operation: OperationName): Promise<void> {
  if (call.actor.role === 'admin') return
  await call.vault.driver.transaction((tx) =>
    appendAudit(tx, call.vault.keyring.auditKey, {
      projectId: null,
      actor: call.actor.label,
      action: operation.action,
      target: operation.target ?? null,
      result: 'denied',
      requestId: call.origin?.requestId ?? null,
      ip: call.origin?.ip ?? null,
      detail: `${operation.action} needs the admin role`,
    }),
  )
  throw new ForbiddenError(`${operation.action} needs the admin role`)
}

/**
 * Runs `work` in one transaction (admins only unless `membersMay`), with the project resolved when the
 * operation names one, and appends its audit event there.
 */
export async function runOperation<T>(
  call: AdminCall,
  operation: OperationName,
  work: (tx: SqlExecutor, projectId: string | null) => Promise<T>,
): Promise<T> {
  if (!operation.membersMay) await requireAdmin(call, operation)
  return call.vault.driver.transaction(async (tx) => {
    const projectId =
      operation.project === undefined ? null : (await requireProject(tx, operation.project)).id
    const result = await work(tx, projectId)
    if (operation.read && call.actor.label === hostAdmin.label) return result
    await appendAudit(tx, call.vault.keyring.auditKey, {
      projectId,
      actor: call.actor.label,
      action: operation.action,
      target: operation.target ?? null,
      result: 'ok',
      requestId: call.origin?.requestId ?? null,
      ip: call.origin?.ip ?? null,
    })
    return result
  })
}
