/**
 * Webhooks: registration per project (signing secret sealed at rest, shown once) and the outbox
 * worker that delivers queued events with retries and exponential backoff. Each delivery carries
 * `X-Vault-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<exact body>">`. Payloads never
 * hold values, and a slow receiver never blocks or rolls back a write (delivery runs after commit).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { NotFoundError, UsageError } from '../errors.js'
import type { VaultContext } from './context.js'
import type { Keyring } from './keyring.js'
import type { SecretScope } from './secrets.js'
import type { SqlDriver, SqlExecutor } from './store/index.js'

const maxAttempts = 8
const timeoutMs = 5_000

/** The signature header value for a body at a time. */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}

/** Registers a webhook; returns its signing secret once. */
export async function createWebhook(tx: SqlExecutor, keyring: Keyring, projectId: string, url: string) {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new UsageError('the webhook URL is not a URL')
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new UsageError('webhook URLs are http(s)')
  const id = randomUUID()
  const secret = `whsec_${randomBytes(24).toString('base64url')}`
  await tx.run(
    `INSERT INTO webhooks (id, project_id, url, sealed_secret, created_at) VALUES (?, ?, ?, ?, ?)`,
    [id, projectId, url, keyring.sealInternal(secret, `webhook|${id}`), new Date().toISOString()],
  )
  return { id, url, secret }
}

/** The webhooks of a project. */
export async function listWebhooks(tx: SqlExecutor, projectId: string) {
  return tx.all<{ id: string; url: string; created_at: string; disabled_at: string | null }>(
    `SELECT id, url, created_at, disabled_at FROM webhooks WHERE project_id = ? ORDER BY created_at`,
    [projectId],
  )
}

/**
 * Stops a webhook of a project: no further deliveries, pending ones included. The row stays (listed as
 * disabled) so the audit trail keeps naming it. Throws NotFoundError for an unknown or stopped webhook.
 */
export async function disableWebhook(tx: SqlExecutor, projectId: string, id: string): Promise<void> {
  const changed = await tx.run(
    `UPDATE webhooks SET disabled_at = ? WHERE id = ? AND project_id = ? AND disabled_at IS NULL`,
    [new Date().toISOString(), id, projectId],
  )
  if (changed === 0)
    throw new NotFoundError(`no active webhook ${id} in this project`, {
      hint: 'see `vault webhook list` for the ids',
    })
}

/** Delay before attempt `attempts + 1`: 1 s, 2 s, 4 s ... capped at 10 minutes. */
export function backoffMs(attempts: number): number {
  return Math.min(1000 * 2 ** attempts, 600_000)
}

/** Starts the outbox worker; `poke()` asks for a prompt pass, `stop()` ends it. */
export function startWebhookWorker(driver: SqlDriver, keyring: Keyring, pollMs = 1000) {
  let stopped = false
  let running = false
  let timer: NodeJS.Timeout | undefined

  async function deliverDue(): Promise<void> {
    const now = new Date().toISOString()
    const due = await driver.transaction((tx) =>
      tx.all<{
        id: string
        webhook_id: string
        body: string
        attempts: number
        url: string
        sealed_secret: string
      }>(
        `SELECT o.id, o.webhook_id, o.body, o.attempts, w.url, w.sealed_secret FROM webhook_outbox o
         JOIN webhooks w ON w.id = o.webhook_id
         WHERE w.disabled_at IS NULL AND o.delivered_at IS NULL AND o.next_attempt_at <= ? AND o.attempts < ? ORDER BY o.created_at LIMIT 20`,
        [now, maxAttempts],
      ),
    )
    for (const item of due) {
      if (stopped) return
      const secret = keyring.openInternal(item.sealed_secret, `webhook|${item.webhook_id}`)
      let failure: string | null = null
      try {
        const response = await fetch(item.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-vault-signature': signWebhook(secret, item.body, Math.floor(Date.now() / 1000)),
            'x-vault-delivery': item.id,
          },
          body: item.body,
          signal: AbortSignal.timeout(timeoutMs),
        })
        await response.arrayBuffer().catch(() => undefined)
        if (response.status < 200 || response.status >= 300) failure = `HTTP ${response.status}`
      } catch (error) {
        failure = (error as Error).name
      }
      const attempts = Number(item.attempts) + 1
      await driver.transaction((tx) =>
        failure === null
          ? tx.run(
              `UPDATE webhook_outbox SET attempts = ?, delivered_at = ?, last_error = NULL WHERE id = ?`,
              [attempts, new Date().toISOString(), item.id],
            )
          : tx.run(
              `UPDATE webhook_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`,
              [attempts, new Date(Date.now() + backoffMs(attempts - 1)).toISOString(), failure, item.id],
            ),
      )
    }
  }

  function schedule(delay: number) {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(() => void pass(), delay)
    timer.unref()
  }

  async function pass() {
    if (running || stopped) return
    running = true
    try {
      await deliverDue()
    } catch {
      // the next pass retries; the outbox keeps the events
    } finally {
      running = false
      schedule(pollMs)
    }
  }

  schedule(pollMs)
  return {
    poke: () => schedule(20),
    stop: () => {
      stopped = true
      clearTimeout(timer)
    },
  }
}

/** Queues one delivery per active webhook of the project in the caller's transaction (no value in it). */
export async function queueWebhookEvents(
  context: VaultContext,
  tx: SqlExecutor,
  scope: SecretScope,
  type: string,
  name: string,
  version: number,
) {
  const hooks = await tx.all<{ id: string }>(
    `SELECT id FROM webhooks WHERE project_id = ? AND disabled_at IS NULL`,
    [scope.projectId],
  )
  if (hooks.length === 0) return
  const now = new Date().toISOString()
  for (const hook of hooks) {
    const body = JSON.stringify({
      id: randomUUID(),
      type,
      occurredAt: now,
      projectId: scope.projectId,
      environment: scope.environment,
      secret: { name, version },
      actor: scope.actor,
    })
    await tx.run(
      `INSERT INTO webhook_outbox (id, webhook_id, body, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, 0, ?, ?)`,
      [randomUUID(), hook.id, body, now, now],
    )
  }
  context.onOutbox?.()
}
