/**
 * The admin API's webhooks: GET/POST /api/v1/admin/projects/:project/webhooks and DELETE
 * .../webhooks/:id. The receiver passes the SSRF guard (private addresses only when the server runs
 * with --allow-private-webhooks); the signing secret is in the creation answer only. Admins only.
 */
import { json } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { createWebhookOp, deleteWebhookOp, listWebhooksOp } from '../operations/webhooks.js'
import type { Resource } from '../http/router.js'
import { adminHandler, stringFields } from './admin-route.js'

/** The webhook resources of the admin API. */
export function adminWebhookResources(context: VaultContext): Resource[] {
  const base = '/api/v1/admin/projects/:project/webhooks'
  return [
    {
      path: base,
      methods: {
        GET: adminHandler(context, async (call, request) =>
          json(200, { webhooks: await listWebhooksOp(call, { project: request.params.project! }) }),
        ),
        POST: adminHandler(context, async (call, request) => {
          const fields = await stringFields(request, { required: ['url'] })
          const created = await createWebhookOp(call, {
            project: request.params.project!,
            url: fields.url,
            allowPrivate: context.allowPrivateWebhooks,
          })
          return json(201, { webhook: created })
        }),
      },
    },
    {
      path: `${base}/:id`,
      methods: {
        DELETE: adminHandler(context, async (call, request) => {
          await deleteWebhookOp(call, { project: request.params.project!, id: request.params.id! })
          return json(200, { deleted: request.params.id })
        }),
      },
    },
  ]
}
