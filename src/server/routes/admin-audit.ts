/**
 * The admin API's audit log: GET /api/v1/admin/audit (`?project=` name or id, `?after=` seq,
 * `?limit=` 1 to 1000) and GET /api/v1/admin/audit/verify (the state of the chain, the row MACs and
 * the secret versions' audit events). Admins only; both reads are audited.
 */
import { json } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { listAuditOp, verifyAuditOp } from '../operations/audit.js'
import type { Resource } from '../http/router.js'
import { adminHandler, integerParam } from './admin-route.js'

/** The audit resources of the admin API. */
export function adminAuditResources(context: VaultContext): Resource[] {
  return [
    {
      path: '/api/v1/admin/audit',
      methods: {
        GET: adminHandler(context, async (call, request) => {
          const project = request.url.searchParams.get('project') ?? undefined
          const events = await listAuditOp(call, {
            project: project === '' ? undefined : project,
            afterSeq: integerParam(request, 'after', 0),
            limit: Math.min(Math.max(integerParam(request, 'limit', 100), 1), 1000),
          })
          return json(200, { events })
        }),
      },
    },
    {
      path: '/api/v1/admin/audit/verify',
      methods: {
        GET: adminHandler(context, async (call) => json(200, await verifyAuditOp(call))),
      },
    },
  ]
}
