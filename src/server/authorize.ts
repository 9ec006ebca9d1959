/**
 * Authorisation of API requests: the bearer's principal, the project check, the environment (given or
 * the only one reachable) and the permission, all inside the operation's own transaction so that a
 * denial's audit event commits and a revoked token is refused at once on every replica.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { appendAudit } from './audit.js'
import { loadPrincipal, unauthorized, verifyBearer, type Principal } from './auth.js'
import type { VaultContext } from './context.js'
import { ApiError } from './http.js'
import type { Permission } from './identities.js'
import type { SecretScope } from './secrets.js'
import type { SqlExecutor } from './store/index.js'
import type { AccessClaims } from './tokens.js'

export interface RequestState {
  request: IncomingMessage
  response: ServerResponse
  url: URL
  params: string[]
  requestId: string
  ip: string
}

/** The result of work inside a transaction: a value, or an API error to throw after the commit. */
export type Outcome<T> = { value: T } | { error: ApiError }

/** Builds the authorisation helpers of one vault. */
export function createAuthorizer(context: VaultContext) {
  async function deny(
    tx: SqlExecutor,
    state: RequestState,
    principal: Principal,
    environment: string | null,
    message: string,
  ) {
    await appendAudit(tx, context.keyring.auditKey, {
      projectId: principal.projectId,
      environment,
      actor: `identity:${principal.identityId}`,
      action: `${state.request.method} ${state.url.pathname}`,
      result: 'denied',
      requestId: state.requestId,
      ip: state.ip,
      detail: message,
    })
    return { error: new ApiError(403, 'forbidden', message) }
  }

  /**
   * Runs `work` for the bearer's principal in ONE transaction: the revocation check, the denial audit
   * (committed, not rolled back) and the operation with its own audit event.
   */
  async function asPrincipal<T>(
    state: RequestState,
    claims: AccessClaims,
    work: (tx: SqlExecutor, principal: Principal) => Promise<Outcome<T>>,
  ): Promise<T> {
    const outcome = await context.driver.transaction(async (tx): Promise<Outcome<T>> => {
      const principal = await loadPrincipal(context, tx, claims, state.ip, state.requestId)
      if (!principal) return { error: unauthorized('the access token was revoked') }
      const project = state.url.searchParams.get('project')
      if (project !== null && project !== principal.projectId) {
        return deny(
          tx,
          state,
          principal,
          null,
          `this token does not belong to project ${project.slice(0, 64)}`,
        )
      }
      return work(tx, principal)
    })
    if ('error' in outcome) throw outcome.error
    return outcome.value
  }

  /** Like asPrincipal, for a secrets operation needing `needed` on the request's environment. */
  function inEnvironment<T>(
    state: RequestState,
    claims: AccessClaims,
    needed: Permission,
    work: (tx: SqlExecutor, scope: SecretScope) => Promise<T>,
  ): Promise<T> {
    return asPrincipal(state, claims, async (tx, principal) => {
      let environment = state.url.searchParams.get('environment')
      if (environment === null || environment === '') {
        const reachable = Object.keys(principal.permissions).filter(
          (slug) => (principal.permissions[slug] ?? []).length > 0,
        )
        if (reachable.length !== 1) {
          return {
            error: new ApiError(
              400,
              'environment_required',
              `add ?environment= with one of: ${reachable.sort().join(', ')}`,
            ),
          }
        }
        environment = reachable[0]!
      }
      const [known] = await tx.all(`SELECT slug FROM environments WHERE project_id = ? AND slug = ?`, [
        principal.projectId,
        environment,
      ])
      if (!known)
        return {
          error: new ApiError(
            404,
            'not_found',
            `environment '${environment.slice(0, 64)}' does not exist in this project`,
          ),
        }
      const granted = principal.permissions[environment] ?? []
      if (!granted.includes(needed) && !granted.includes('admin')) {
        return deny(
          tx,
          state,
          principal,
          environment,
          `this identity has no ${needed} permission on '${environment}'`,
        )
      }
      const scope = {
        projectId: principal.projectId,
        environment,
        actor: `identity:${principal.identityId}`,
        requestId: state.requestId,
        ip: state.ip,
      }
      return { value: await work(tx, scope) }
    })
  }

  const bearer = (state: RequestState) => verifyBearer(context, state.request, state.ip, state.requestId)

  return { deny, asPrincipal, inEnvironment, bearer }
}
