/**
 * The admin API's machine identities: GET/POST /api/v1/admin/projects/:project/identities, DELETE
 * .../identities/:identity (revoke) and POST .../identities/:identity/rotate-secret. A new or rotated
 * client secret is in that one answer only. Admins only.
 */
import { json } from '../http/api.js'
import type { VaultContext } from '../context.js'
import {
  createIdentityOp,
  listIdentitiesOp,
  revokeIdentityOp,
  rotateIdentitySecretOp,
} from '../operations/identities.js'
import type { Resource } from '../http/router.js'
import { adminHandler, stringFields } from './admin-route.js'

/** The identity resources of the admin API. */
export function adminIdentityResources(context: VaultContext): Resource[] {
  const base = '/api/v1/admin/projects/:project/identities'
  return [
    {
      path: base,
      methods: {
        GET: adminHandler(context, async (call, request) =>
          json(200, { identities: await listIdentitiesOp(call, { project: request.params.project! }) }),
        ),
        POST: adminHandler(context, async (call, request) => {
          const fields = await stringFields(request, { required: ['name', 'permissions'] })
          const created = await createIdentityOp(call, { project: request.params.project!, ...fields })
          return json(201, { identity: created })
        }),
      },
    },
    {
      path: `${base}/:identity`,
      methods: {
        DELETE: adminHandler(context, async (call, request) => {
          await revokeIdentityOp(call, {
            project: request.params.project!,
            identity: request.params.identity!,
          })
          return json(200, { revoked: request.params.identity })
        }),
      },
    },
    {
      path: `${base}/:identity/rotate-secret`,
      methods: {
        POST: adminHandler(context, async (call, request) =>
          json(200, {
            identity: await rotateIdentitySecretOp(call, {
              project: request.params.project!,
              identity: request.params.identity!,
            }),
          }),
        ),
      },
    },
  ]
}
