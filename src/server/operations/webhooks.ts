/**
 * Admin operations on webhooks: create (the receiver is checked against the SSRF guard; the signing
 * secret is returned once), list, delete (stop deliveries). Admins only; audit targets name the URL
 * without its userinfo.
 */
import { redactUrl } from '../webhooks/webhook-target.js'
import { createWebhook, disableWebhook, listWebhooks } from '../webhooks/webhooks.js'
import { runOperation, type AdminCall } from './call.js'

/** Registers a webhook of a project. */
export function createWebhookOp(
  call: AdminCall,
  input: { project: string; url: string; allowPrivate?: boolean },
) {
  return runOperation(
    call,
    { action: 'webhook.create', project: input.project, target: redactUrl(input.url) },
    (tx, projectId) =>
      createWebhook(tx, call.vault.keyring, {
        projectId: projectId!,
        url: input.url,
        allowPrivate: input.allowPrivate,
      }),
  )
}

/** The webhooks of a project. */
export function listWebhooksOp(call: AdminCall, input: { project: string }) {
  return runOperation(call, { action: 'webhook.list', project: input.project, read: true }, (tx, projectId) =>
    listWebhooks(tx, projectId!),
  )
}

/** Stops a webhook (NotFoundError for an unknown or stopped one). */
export function deleteWebhookOp(call: AdminCall, input: { project: string; id: string }) {
  return runOperation(
    call,
    { action: 'webhook.delete', project: input.project, target: input.id },
    (tx, projectId) => disableWebhook(tx, call.vault.keyring, projectId!, input.id),
  )
}
