/**
 * Webhooks: registration per project (receiver checked by the SSRF guard, signing secret sealed at
 * rest, shown once) and the outbox worker that delivers queued events with retries and exponential
 * backoff. Each delivery carries `X-Vault-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<exact body>">`. Payloads never hold values, and a slow receiver never blocks or rolls back a
 * write (delivery runs after commit).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { NotFoundError, UsageError } from '../../errors.js'
import type { InTransaction } from '../context.js'
import type { Keyring } from '../keys/keyring.js'
import { sealRow } from '../keys/row-mac.js'
import type { SecretScope } from '../secrets/secrets.js'
import type { SqlDriver, SqlExecutor } from '../store/index.js'
import { deliver } from './webhook-delivery.js'
import { defaultTimings, type WebhookTimings } from '../timings.js'
import {
  activeWebhookIds,
  disableWebhookRow,
  dueDeliveries,
  insertOutboxRow,
  insertWebhookRow,
  listWebhookRows,
  recordAttempt,
  type WebhookRow,
} from './webhook-rows.js'
import {
  checkReceiver,
  isLoopbackTarget,
  parseReceiverUrl,
  redactUrl,
  type Resolver,
} from './webhook-target.js'

const maxAttempts = 8

/** The signature header value for a body at a time. */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}

/** A webhook registration: where, and whether loopback and private receivers are allowed. */
export interface NewWebhook {
  projectId: string
  url: string
  allowPrivate?: boolean
  resolve?: Resolver
  /** How long to wait for the receiver's name (default registrationLookupMs); tests give a short one. */
  lookupTimeoutMs?: number
}

/** How long registering a webhook waits for its name to resolve (it runs inside a transaction). */
const registrationLookupMs = 5_000

/**
 * Registers a webhook after checking its receiver (UsageError for a refused or unresolvable one);
 * returns its signing secret once, the URL with userinfo hidden, and warnings (plain http:// to a
 * host that is not loopback).
 */
export async function createWebhook(tx: SqlExecutor, keyring: Keyring, hook: NewWebhook) {
  const parsed = parseReceiverUrl(hook.url)
  const warnings: string[] = []
  try {
    await checkReceiver(parsed, {
      allowPrivate: Boolean(hook.allowPrivate),
      resolve: hook.resolve,
      deadline: AbortSignal.timeout(hook.lookupTimeoutMs ?? registrationLookupMs),
    })
  } catch (error) {
    if (error instanceof UsageError) throw error
    warnings.push(`${parsed.hostname} does not resolve now; every delivery checks its address again`)
  }
  if (parsed.protocol === 'http:' && !isLoopbackTarget(parsed))
    warnings.push(
      `deliveries to ${parsed.host} go over plain http://: anyone on the path can read and replay them`,
    )
  const id = randomUUID()
  const secret = `whsec_${randomBytes(24).toString('base64url')}`
  await insertWebhookRow(tx, {
    id,
    projectId: hook.projectId,
    url: hook.url,
    sealedSecret: keyring.sealInternal(secret, `webhook|${id}`),
  })
  await sealRow(tx, keyring.rowMacKey, 'webhooks', id)
  return { id, url: redactUrl(hook.url), secret, warnings }
}

/** The webhooks of a project, URLs with their userinfo hidden. */
export async function listWebhooks(tx: SqlExecutor, projectId: string): Promise<WebhookRow[]> {
  const rows = await listWebhookRows(tx, projectId)
  return rows.map((row) => ({ ...row, url: redactUrl(row.url) }))
}

/**
 * Stops a webhook of a project: no further deliveries, pending ones included. The row stays (listed as
 * disabled) so the audit trail keeps naming it. Throws NotFoundError for an unknown or stopped webhook.
 */
export async function disableWebhook(
  tx: SqlExecutor,
  keyring: Keyring,
  projectId: string,
  id: string,
): Promise<void> {
  if (!(await disableWebhookRow(tx, projectId, id)))
    throw new NotFoundError(`no active webhook ${id} in this project`, {
      hint: 'see `vault webhook list` for the ids',
    })
  await sealRow(tx, keyring.rowMacKey, 'webhooks', id)
}

/** Delay before attempt `attempts + 1`: 1 s, 2 s, 4 s ... capped at 10 minutes (by default). */
export function backoffMs(
  attempts: number,
  retry: Pick<WebhookTimings, 'retryBaseMs' | 'retryMaxMs'> = defaultTimings.webhook,
): number {
  return Math.min(retry.retryBaseMs * 2 ** attempts, retry.retryMaxMs)
}

/** What the outbox worker needs: the store, the keyring and the receiver policy. */
export interface WebhookWorkerOptions {
  driver: SqlDriver
  keyring: Keyring
  allowPrivate: boolean
  /** The poll interval and retry backoff (default: defaultTimings.webhook). */
  timings?: WebhookTimings
  resolve?: Resolver
}

/** Starts the outbox worker; `poke()` asks for a prompt pass, `stop()` ends it. */
export function startWebhookWorker(options: WebhookWorkerOptions) {
  const { driver, keyring } = options
  const timings = options.timings ?? defaultTimings.webhook
  let stopped = false
  let running = false
  let timer: NodeJS.Timeout | undefined

  async function deliverDue(): Promise<void> {
    const due = await driver.transaction((tx) => dueDeliveries(tx, maxAttempts))
    for (const item of due) {
      if (stopped) return
      const secret = keyring.openInternal(item.sealed_secret, `webhook|${item.webhook_id}`)
      const failure = await deliver({
        url: item.url,
        body: item.body,
        headers: {
          'content-type': 'application/json',
          'x-vault-signature': signWebhook(secret, item.body, Math.floor(Date.now() / 1000)),
          'x-vault-delivery': item.id,
        },
        allowPrivate: options.allowPrivate,
        resolve: options.resolve,
      })
      const attempts = Number(item.attempts) + 1
      await driver.transaction((tx) =>
        recordAttempt(tx, {
          id: item.id,
          attempts,
          failure,
          nextAttemptAt: new Date(Date.now() + backoffMs(attempts - 1, timings)),
        }),
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
      schedule(timings.pollMs)
    }
  }

  schedule(timings.pollMs)
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
  at: InTransaction<SecretScope>,
  event: { type: string; name: string; version: number },
) {
  const { context, tx, scope } = at
  let hooks = at.view?.webhookIds(scope.projectId)
  if (!hooks) {
    hooks = await activeWebhookIds(tx, scope.projectId)
    at.view?.storeWebhookIds(scope.projectId, hooks)
  }
  if (hooks.length === 0) return
  const now = new Date().toISOString()
  for (const hookId of hooks) {
    const body = JSON.stringify({
      id: randomUUID(),
      type: event.type,
      occurredAt: now,
      projectId: scope.projectId,
      environment: scope.environment,
      secret: { name: event.name, version: event.version },
      actor: scope.actor,
    })
    await insertOutboxRow(tx, hookId, body)
  }
  context.onOutbox?.()
}
