/**
 * The rows of webhooks and their outbox: registering a webhook (URL and sealed signing secret),
 * listing and disabling, queueing a delivery, the deliveries due, and recording a delivery's outcome.
 */
import { randomUUID } from 'node:crypto'
import type { SqlExecutor } from '../store/index.js'

/** A registered webhook as stored. */
export interface WebhookRow {
  id: string
  url: string
  created_at: string
  disabled_at: string | null
  [column: string]: string | null
}

/** Inserts a webhook row (the URL and its sealed signing secret). */
export async function insertWebhookRow(
  tx: SqlExecutor,
  row: { id: string; projectId: string; url: string; sealedSecret: string },
): Promise<void> {
  await tx.run(
    `INSERT INTO webhooks (id, project_id, url, sealed_secret, created_at) VALUES (?, ?, ?, ?, ?)`,
    [row.id, row.projectId, row.url, row.sealedSecret, new Date().toISOString()],
  )
}

/** The webhooks of a project, oldest first. */
export function listWebhookRows(tx: SqlExecutor, projectId: string): Promise<WebhookRow[]> {
  return tx.all<WebhookRow>(
    `SELECT id, url, created_at, disabled_at FROM webhooks WHERE project_id = ? ORDER BY created_at`,
    [projectId],
  )
}

/** Disables an active webhook of the project; returns whether one was changed. */
export async function disableWebhookRow(tx: SqlExecutor, projectId: string, id: string): Promise<boolean> {
  const changed = await tx.run(
    `UPDATE webhooks SET disabled_at = ? WHERE id = ? AND project_id = ? AND disabled_at IS NULL`,
    [new Date().toISOString(), id, projectId],
  )
  return changed > 0
}

/** The ids of a project's active webhooks. */
export async function activeWebhookIds(tx: SqlExecutor, projectId: string): Promise<string[]> {
  const rows = await tx.all<{ id: string }>(
    `SELECT id FROM webhooks WHERE project_id = ? AND disabled_at IS NULL`,
    [projectId],
  )
  return rows.map((row) => row.id)
}

/** Queues one delivery of `body` to a webhook, due now. */
export async function insertOutboxRow(tx: SqlExecutor, webhookId: string, body: string): Promise<void> {
  const now = new Date().toISOString()
  await tx.run(
    `INSERT INTO webhook_outbox (id, webhook_id, body, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, 0, ?, ?)`,
    [randomUUID(), webhookId, body, now, now],
  )
}

/** A queued delivery with its webhook's URL and sealed secret. */
export interface DueDelivery {
  id: string
  webhook_id: string
  body: string
  attempts: number
  url: string
  sealed_secret: string
  [column: string]: string | number
}

/** Up to 20 deliveries due now to active webhooks with attempts left, oldest first. */
export function dueDeliveries(tx: SqlExecutor, maxAttempts: number): Promise<DueDelivery[]> {
  return tx.all<DueDelivery>(
    `SELECT o.id, o.webhook_id, o.body, o.attempts, w.url, w.sealed_secret FROM webhook_outbox o
     JOIN webhooks w ON w.id = o.webhook_id
     WHERE w.disabled_at IS NULL AND o.delivered_at IS NULL AND o.next_attempt_at <= ? AND o.attempts < ?
     ORDER BY o.created_at LIMIT 20`,
    [new Date().toISOString(), maxAttempts],
  )
}

/** Records an attempt: delivered (failure null) or failed with the time of the next attempt. */
export async function recordAttempt(
  tx: SqlExecutor,
  attempt: { id: string; attempts: number; failure: string | null; nextAttemptAt: Date },
): Promise<void> {
  if (attempt.failure === null) {
    await tx.run(`UPDATE webhook_outbox SET attempts = ?, delivered_at = ?, last_error = NULL WHERE id = ?`, [
      attempt.attempts,
      new Date().toISOString(),
      attempt.id,
    ])
  } else {
    await tx.run(`UPDATE webhook_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`, [
      attempt.attempts,
      attempt.nextAttemptAt.toISOString(),
      attempt.failure,
      attempt.id,
    ])
  }
}
