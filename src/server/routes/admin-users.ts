/**
 * The admin API's human accounts: GET/POST /api/v1/admin/users, DELETE /api/v1/admin/users/:username
 * and PUT /api/v1/admin/users/:username/password (which ends that account's sessions). Admins only,
 * except that a member may change its own password. No answer holds a password or its hash.
 */
import { json } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { changePasswordOp, createUserOp, listUsersOp, removeUserOp } from '../operations/users.js'
import type { Resource } from '../http/router.js'
import { adminHandler, stringFields } from './admin-route.js'

/** The user resources of the admin API. */
export function adminUserResources(context: VaultContext): Resource[] {
  return [
    {
      path: '/api/v1/admin/users',
      methods: {
        GET: adminHandler(context, async (call) => json(200, { users: await listUsersOp(call) })),
        POST: adminHandler(context, async (call, request) => {
          const fields = await stringFields(request, {
            required: ['username', 'password'],
            optional: ['role'],
          })
          const user = await createUserOp(call, { ...fields, role: fields.role ?? 'member' })
          return json(201, { user })
        }),
      },
    },
    {
      path: '/api/v1/admin/users/:username',
      methods: {
        DELETE: adminHandler(context, async (call, request) =>
          json(200, { removed: await removeUserOp(call, { username: request.params.username! }) }),
        ),
      },
    },
    {
      path: '/api/v1/admin/users/:username/password',
      methods: {
        PUT: adminHandler(context, async (call, request) => {
          const fields = await stringFields(request, { required: ['password'] })
          const user = await changePasswordOp(call, {
            username: request.params.username!,
            password: fields.password,
          })
          return json(200, { user })
        }),
      },
    },
  ]
}
