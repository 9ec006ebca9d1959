/**
 * The resources about the caller's own project: /whoami, /environments (those it can reach) and
 * /audit (admins only, of the environments they administer; reading it is itself audited).
 */
import { json } from '../http/api.js'
import { appendAudit, listAudit } from '../audit/audit.js'
import type { createAuthorizer } from '../authorize.js'
import type { VaultContext } from '../context.js'
import { grantsOn, listEnvironments, requireProject } from '../identities.js'
import type { Resource } from '../http/router.js'

/** The principal's resources of a vault. */
export function principalResources(
  context: VaultContext,
  authorizer: ReturnType<typeof createAuthorizer>,
): Resource[] {
  const { asPrincipal, deny } = authorizer
  return [
    {
      path: '/api/v1/whoami',
      methods: {
        GET: async (request) => {
          const { principal, project } = await asPrincipal(request, async (tx, found) => ({
            value: { principal: found, project: await requireProject(tx, found.projectId) },
          }))
          return json(200, {
            identity: { id: principal.identityId, name: principal.name, clientId: principal.clientId },
            project: { id: project.id, name: project.name },
            permissions: principal.permissions,
          })
        },
      },
    },
    {
      path: '/api/v1/environments',
      methods: {
        GET: async (request) => {
          const environments = await asPrincipal(request, async (tx, principal) => {
            const rows = await listEnvironments(tx, principal.projectId)
            return { value: rows.filter((row) => grantsOn(principal.permissions, row.slug).length > 0) }
          })
          return json(200, { environments })
        },
      },
    },
    {
      path: '/api/v1/audit',
      methods: {
        GET: async (request) => {
          const after = Number(request.url.searchParams.get('after') ?? 0) || 0
          const limit = Number(request.url.searchParams.get('limit') ?? 100) || 100
          const events = await asPrincipal(request, async (tx, principal) => {
            if (!Object.values(principal.permissions).some((levels) => levels.includes('admin'))) {
              return deny(tx, {
                request,
                principal,
                environment: null,
                message: 'reading the audit log needs admin on the project',
              })
            }
            // an identity reads the events of the environments it administers; the project's events of
            // no environment (logins, identities, webhooks) only when it administers all of them
            const slugs = (await listEnvironments(tx, principal.projectId)).map((row) => row.slug)
            const administered = slugs.filter((slug) =>
              grantsOn(principal.permissions, slug).includes('admin'),
            )
            const found = await listAudit(tx, {
              projectId: principal.projectId,
              afterSeq: after,
              limit,
              environments: { slugs: administered, projectWide: administered.length === slugs.length },
            })
            await appendAudit(tx, context.keyring.auditKey, {
              projectId: principal.projectId,
              actor: principal.actor,
              action: 'audit.list',
              result: 'ok',
              requestId: request.origin.requestId,
              ip: request.origin.ip,
            })
            return { value: found }
          })
          return json(200, { events })
        },
      },
    },
  ]
}
