/**
 * A signed-in human on the secrets API (`vault login --user NAME`, then the usual commands): the token's
 * session must be live, the project comes from `?project=` (name or id; required, humans are not bound
 * to one project), and the human reaches every environment of it: read and write for a member, read,
 * write and admin for an admin. The audit actor is `user:NAME`.
 */
import type { ApiRequest } from '../http/api.js'
import type { Principal } from '../tokens/auth.js'
import type { Outcome } from '../authorize.js'
import type { VaultContext } from '../context.js'
import { ApiError } from '../http/http.js'
import { listEnvironments, type Permission } from '../identities.js'
import type { SqlExecutor } from '../store/index.js'
import type { AccessClaims } from '../tokens/tokens.js'
import { humanTokenProject } from './human-token.js'
import { humanActorLabel, readSessionIn } from './session.js'

/** Whether verified claims are a human's (a CLI session's token). */
export function isHumanClaims(claims: AccessClaims): boolean {
  return claims.pid === humanTokenProject && claims.sub.startsWith('user:')
}

/** The principal of a human's token for the request's project, or the error to answer. */
export async function loadHumanPrincipal(
  context: VaultContext,
  tx: SqlExecutor,
  at: { claims: AccessClaims; request: ApiRequest },
): Promise<Outcome<Principal>> {
  const { claims, request } = at
  const session = await readSessionIn(context, tx, { sessionId: claims.jti, kind: 'cli' })
  if (!session || humanActorLabel(session) !== claims.sub) {
    await context.failedAuth.record(
      {
        projectId: null,
        actor: claims.sub,
        action: 'auth.token',
        result: 'denied',
        requestId: request.origin.requestId,
        ip: request.origin.ip,
        detail: 'ended or expired session',
      },
      tx,
    )
    return {
      error: new ApiError(401, 'unauthorized', 'the session ended or expired; run vault login --user NAME', {
        'www-authenticate': 'Bearer realm="vault"',
      }),
    }
  }
  const wanted = request.url.searchParams.get('project')
  if (!wanted)
    return { error: new ApiError(400, 'project_required', 'a human token needs ?project= (name or id)') }
  const [project] = await tx.all<{ id: string }>(`SELECT id FROM projects WHERE id = ? OR name = ?`, [
    wanted,
    wanted,
  ])
  if (!project)
    return { error: new ApiError(404, 'not_found', `project '${wanted.slice(0, 64)}' does not exist`) }
  const levels: Permission[] = session.role === 'admin' ? ['read', 'write', 'admin'] : ['read', 'write']
  const environments = await listEnvironments(tx, project.id)
  return {
    value: {
      identityId: claims.sub,
      actor: claims.sub,
      projectId: project.id,
      name: session.username,
      clientId: claims.sub,
      permissions: Object.fromEntries(environments.map((environment) => [environment.slug, levels])),
      jti: claims.jti,
    },
  }
}
