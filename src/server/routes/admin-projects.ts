/**
 * The admin API's projects and environments: GET/POST /api/v1/admin/projects and
 * GET/POST /api/v1/admin/projects/:project/environments (`:project` is a name or an id). Members may
 * list; creating is for admins.
 */
import { json } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { ApiError, readJsonObject } from '../http/http.js'
import {
  createEnvironmentOp,
  createProjectOp,
  listEnvironmentsOp,
  listProjectsOp,
} from '../operations/projects.js'
import type { Resource } from '../http/router.js'
import { adminHandler, stringFields } from './admin-route.js'

/** The project and environment resources of the admin API. */
export function adminProjectResources(context: VaultContext): Resource[] {
  return [
    {
      path: '/api/v1/admin/projects',
      methods: {
        GET: adminHandler(context, async (call) => json(200, { projects: await listProjectsOp(call) })),
        POST: adminHandler(context, async (call, request) => {
          const body = await readJsonObject(request)
          const environments = body.environments ?? ['dev', 'staging', 'prod']
          if (
            typeof body.name !== 'string' ||
            !Array.isArray(environments) ||
            environments.length > 50 ||
            !environments.every((slug) => typeof slug === 'string')
          )
            throw new ApiError(
              400,
              'bad_request',
              'the body needs "name" and optionally "environments" (strings)',
            )
          const created = await createProjectOp(call, {
            name: body.name,
            environments: environments as string[],
          })
          return json(201, { project: created })
        }),
      },
    },
    {
      path: '/api/v1/admin/projects/:project/environments',
      methods: {
        GET: adminHandler(context, async (call, request) =>
          json(200, { environments: await listEnvironmentsOp(call, { project: request.params.project! }) }),
        ),
        POST: adminHandler(context, async (call, request) => {
          const fields = await stringFields(request, { required: ['slug'], optional: ['name'] })
          const created = await createEnvironmentOp(call, {
            project: request.params.project!,
            slug: fields.slug,
            name: fields.name,
          })
          return json(201, { environment: created })
        }),
      },
    },
  ]
}
