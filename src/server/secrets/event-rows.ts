/**
 * The change feed's query: the secret changes of one environment after an audit sequence number, read
 * from the audit log (every create, update, delete and rollback appends its event there in the same
 * transaction). Audit sequence numbers are assigned under the audit head's row lock, so they are in
 * commit order on every engine: a reader that has seen `seq` N has seen every change before it.
 */
import type { SqlExecutor } from '../store/index.js'

export type ChangeKind = 'created' | 'updated' | 'deleted' | 'rolled_back'

/** One changed secret: never its value. */
export interface SecretChange {
  seq: number
  name: string
  version: number
  change: ChangeKind
  at: string
}

const kindOfAction: Record<string, ChangeKind> = {
  'secret.create': 'created',
  'secret.update': 'updated',
  'secret.delete': 'deleted',
  'secret.rollback': 'rolled_back',
}

/** The changes of an environment with `seq` above `afterSeq`, oldest first, at most `limit`. */
export async function secretChangesAfter(
  tx: SqlExecutor,
  environment: { projectId: string; environment: string },
  afterSeq: number,
  limit: number,
): Promise<SecretChange[]> {
  const rows = await tx.all<{
    seq: number
    action: string
    target: string
    detail: string | null
    at: string
  }>(
    `SELECT seq, action, target, detail, at FROM audit_events
     WHERE project_id = ? AND seq > ? AND environment = ? AND result = 'ok'
       AND action IN ('secret.create', 'secret.update', 'secret.delete', 'secret.rollback')
     ORDER BY seq LIMIT ?`,
    [environment.projectId, afterSeq, environment.environment, limit],
  )
  return rows.map((row) => ({
    seq: Number(row.seq),
    name: String(row.target),
    version: Number(/version (\d+)$/.exec(row.detail ?? '')?.[1] ?? 0),
    change: kindOfAction[row.action]!,
    at: String(row.at),
  }))
}
