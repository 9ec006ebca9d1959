/**
 * Authorisation of API requests: the bearer's principal, the project check, the environment (given or
 * the only one reachable) and the permission, all inside the operation's own transaction so that a
 * denial's audit event commits and a revoked token is refused at once on every replica. A signed-in
 * human's token (humans/human-principal.ts) names its project with ?project=. On PostgreSQL a request
 * first reads the database generation (read-cache.ts) and then takes the principal, the environment
 * check and a listing from the caches of that generation when they hold it.
 */
import type { ApiRequest } from './http/api.js'
import { appendAudit } from './audit/audit.js'
import { loadPrincipal, unauthorized, verifyBearer, type Principal } from './tokens/auth.js'
import type { InTransaction, VaultContext } from './context.js'
import { ApiError } from './http/http.js'
import { isHumanClaims, loadHumanPrincipal } from './humans/human-principal.js'
import { environmentExists, grantsOn, type Permission } from './identities.js'
import type { CacheView } from './read-cache.js'
import type { SecretScope } from './secrets/secrets.js'
import { StaleGenerationError } from './store/driver.js'
import type { SqlExecutor } from './store/index.js'

/** The result of work inside a transaction: a value, or an API error to throw after the commit. */
export type Outcome<T> = { value: T } | { error: ApiError }

/** A denial to audit: who asked for what, where, and why it was refused. */
export interface Denial {
  request: ApiRequest
  principal: Principal
  environment: string | null
  message: string
}

/** Builds the authorisation helpers of one vault. */
export function createAuthorizer(context: VaultContext) {
  /** Audits a denial in `tx` (it commits) and returns the 403 to throw after the commit. */
  async function deny(tx: SqlExecutor, denial: Denial): Promise<{ error: ApiError }> {
    const { request, principal } = denial
    await appendAudit(tx, context.keyring.auditKey, {
      projectId: principal.projectId,
      environment: denial.environment,
      actor: principal.actor,
      action: `${request.method} ${request.url.pathname}`,
      result: 'denied',
      requestId: request.origin.requestId,
      ip: request.origin.ip,
      detail: denial.message,
    })
    return { error: new ApiError(403, 'forbidden', denial.message) }
  }

  /**
   * Runs `work` for the bearer's principal in ONE transaction: the bearer check, the revocation check,
   * the denial audit (committed, not rolled back) and the operation with its own audit event.
   */
  async function asPrincipal<T>(
    request: ApiRequest,
    work: (tx: SqlExecutor, principal: Principal, view?: CacheView) => Promise<Outcome<T>>,
  ): Promise<T> {
    const claims = await verifyBearer(context, request)
    const attempt = (view: CacheView | undefined) =>
      context.driver.transaction(
        async (tx): Promise<Outcome<T>> => {
          if (isHumanClaims(claims)) {
            const human = await loadHumanPrincipal(context, tx, { claims, request })
            return 'error' in human ? human : work(tx, human.value, view)
          }
          const principal = await loadPrincipal(context, tx, { claims, origin: request.origin, view })
          if (!principal) return { error: unauthorized('the access token was revoked') }
          const project = request.url.searchParams.get('project')
          if (project !== null && project !== principal.projectId) {
            return deny(tx, {
              request,
              principal,
              environment: null,
              message: `this token does not belong to project ${project.slice(0, 64)}`,
            })
          }
          return work(tx, principal, view)
        },
        { assumes: view?.assumption() },
      )
    const outcome = await attemptOptimistically(attempt, claims).catch(async (error: unknown) => {
      if (!(error instanceof StaleGenerationError)) throw error
      // the generation the check read started after this request arrived: the second run can use it
      const cache = context.readCache!
      return attempt(error.current ? cache.viewAt(error.current) : await cache.view())
    })
    if ('error' in outcome) throw outcome.error
    return outcome.value
  }

  /**
   * Runs `attempt` with a view of the generation the caches hold, unchecked, when the token's
   * principal is cached there (the transaction then checks the generation when it commits, and the
   * caller runs it again on StaleGenerationError); else with a generation read for this request.
   * Only a cached principal goes unchecked: a lookup that finds a revoked token records the failure
   * (failed-auth-log.ts), which must not happen twice.
   */
  async function attemptOptimistically<R>(
    attempt: (view: CacheView | undefined) => Promise<R>,
    claims: Awaited<ReturnType<typeof verifyBearer>>,
  ): Promise<R> {
    const cache = context.readCache
    const held = cache?.optimistic()
    if (held && !isHumanClaims(claims) && held.principal(claims.jti)) return attempt(held)
    return attempt(await cache?.view())
  }

  function reachableEnvironment(principal: Principal): Outcome<string> {
    const reachable = Object.keys(principal.permissions).filter(
      (slug) => grantsOn(principal.permissions, slug).length > 0,
    )
    if (reachable.length === 1) return { value: reachable[0]! }
    return {
      error: new ApiError(
        400,
        'environment_required',
        `add ?environment= with one of: ${reachable.sort().join(', ')}`,
      ),
    }
  }

  /** Like asPrincipal, for a secrets operation needing `needed` on the request's environment. */
  function inEnvironment<T>(
    request: ApiRequest,
    needed: Permission,
    work: (at: InTransaction<SecretScope>) => Promise<T>,
  ): Promise<T> {
    return asPrincipal(request, async (tx, principal, view) => {
      const given = request.url.searchParams.get('environment')
      const chosen = given === null || given === '' ? reachableEnvironment(principal) : { value: given }
      if ('error' in chosen) return chosen
      const environment = chosen.value
      if (!(await environmentExists(tx, principal.projectId, environment, view)))
        return {
          error: new ApiError(
            404,
            'not_found',
            `environment '${environment.slice(0, 64)}' does not exist in this project`,
          ),
        }
      const granted = grantsOn(principal.permissions, environment)
      if (!granted.includes(needed) && !granted.includes('admin')) {
        return deny(tx, {
          request,
          principal,
          environment,
          message: `this identity has no ${needed} permission on '${environment}'`,
        })
      }
      const scope: SecretScope = {
        projectId: principal.projectId,
        environment,
        actor: principal.actor,
        requestId: request.origin.requestId,
        ip: request.origin.ip,
      }
      return { value: await work({ context, tx, scope, view }) }
    })
  }

  /** Checks the bearer token before a body is read (401 before 400); asPrincipal checks it again, cached. */
  const authenticate = (request: ApiRequest) => verifyBearer(context, request)

  return { deny, asPrincipal, inEnvironment, authenticate }
}
