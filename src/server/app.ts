/**
 * The vault's HTTP API under /api/v1 as a plain node:http request handler with a small route table:
 * authentication, authorisation per environment (each denial audited), the secrets routes with
 * ETag/If-Match, audit listing, health, HEAD / and the OpenAPI document.
 */
import { randomUUID } from 'node:crypto'
import type { RequestListener } from 'node:http'
import { appendAudit, listAudit } from './audit.js'
import { issueToken, OAuthError, RateLimiter, revokeToken } from './auth.js'
import { createAuthorizer, type RequestState } from './authorize.js'
import type { VaultContext } from './context.js'
import { ApiError, clientAddress, readJsonObject, sendJson } from './http.js'
import { openApiDocument } from './openapi.js'
import * as secrets from './secrets.js'
import { schemaVersion } from './store/index.js'

type Handler = (state: RequestState) => Promise<void>

const namePattern = /^[A-Z][A-Z0-9_]*$/

function checkedName(name: string): string {
  if (!namePattern.test(name) || name.length > 256) {
    throw new ApiError(400, 'invalid_name', 'secret names match ^[A-Z][A-Z0-9_]*$ (UPPER_SNAKE_CASE)')
  }
  return name
}

/** Builds the request handler of the vault API. */
export function createVaultApp(context: VaultContext): RequestListener {
  const limiter = new RateLimiter(context.limits.tokenRequestsPerMinute)

  const { deny, asPrincipal, inEnvironment, bearer } = createAuthorizer(context)

  function secretName(state: RequestState): string {
    let name: string
    try {
      name = decodeURIComponent(state.params[0] ?? '')
    } catch {
      name = ''
    }
    return checkedName(name)
  }

  function valueOf(body: Record<string, unknown>): string {
    const value = body.value
    if (typeof value !== 'string')
      throw new ApiError(400, 'bad_request', 'the body needs a string field "value"')
    if (Buffer.byteLength(value) > context.limits.maxValueBytes) {
      throw new ApiError(
        413,
        'value_too_large',
        `secret values are limited to ${context.limits.maxValueBytes} bytes`,
      )
    }
    return value
  }

  const ifMatch = (state: RequestState) => state.request.headers['if-match']
  const etag = (version: number) => ({ etag: `"${version}"` })

  const write =
    (mode: secrets.WriteMode): Handler =>
    async (state) => {
      const claims = await bearer(state)
      const body = await readJsonObject(state.request)
      const name = mode === 'create' ? bodyName(body) : secretName(state)
      const value = valueOf(body)
      const result = await inEnvironment(state, claims, 'write', (tx, scope) =>
        secrets.writeSecret(context, tx, scope, name, value, mode, ifMatch(state)),
      )
      sendJson(state.response, result.created ? 201 : 200, result.secret, etag(result.secret.version))
    }

  function bodyName(body: Record<string, unknown>): string {
    return checkedName(typeof body.name === 'string' ? body.name : '')
  }

  function versionParam(text: string | undefined): number {
    if (!text || !/^[1-9][0-9]{0,9}$/.test(text))
      throw new ApiError(400, 'bad_request', 'a version is a positive integer')
    return Number(text)
  }

  const routes: [string, RegExp, Handler][] = [
    [
      'POST',
      /^\/api\/v1\/auth\/token$/,
      async (state) => {
        try {
          sendJson(
            state.response,
            200,
            await issueToken(context, state.request, state.ip, limiter, state.requestId),
          )
        } catch (error) {
          if (!(error instanceof OAuthError)) throw error
          sendJson(
            state.response,
            error.status,
            { error: error.error, error_description: error.description },
            error.headers,
          )
        }
      },
    ],
    [
      'POST',
      /^\/api\/v1\/auth\/revoke$/,
      async (state) => {
        await revokeToken(context, state.request)
        sendJson(state.response, 200, {})
      },
    ],
    [
      'GET',
      /^\/api\/v1\/health$/,
      async (state) => {
        sendJson(state.response, 200, { status: 'ok', version: context.version, schemaVersion })
      },
    ],
    [
      'GET',
      /^\/api\/v1\/openapi\.(json|yaml)$/,
      async (state) => {
        const document = await openApiDocument()
        if (state.params[0] === 'yaml') {
          state.response.writeHead(200, { 'content-type': 'application/yaml; charset=utf-8' })
          state.response.end(document.yaml)
        } else sendJson(state.response, 200, document.json)
      },
    ],
    [
      'GET',
      /^\/api\/v1\/whoami$/,
      async (state) => {
        const [principal, project] = await asPrincipal(state, await bearer(state), async (tx, found) => ({
          value: [
            found,
            (await tx.all(`SELECT id, name FROM projects WHERE id = ?`, [found.projectId]))[0],
          ] as const,
        }))
        sendJson(state.response, 200, {
          identity: { id: principal.identityId, name: principal.name, clientId: principal.clientId },
          project: { id: project?.id, name: project?.name },
          permissions: principal.permissions,
        })
      },
    ],
    [
      'GET',
      /^\/api\/v1\/environments$/,
      async (state) => {
        const environments = await asPrincipal(state, await bearer(state), async (tx, principal) => {
          const rows = await tx.all(
            `SELECT slug, name FROM environments WHERE project_id = ? ORDER BY created_at, slug`,
            [principal.projectId],
          )
          return { value: rows.filter((row) => (principal.permissions[String(row.slug)] ?? []).length > 0) }
        })
        sendJson(state.response, 200, { environments })
      },
    ],
    [
      'GET',
      /^\/api\/v1\/audit$/,
      async (state) => {
        const after = Number(state.url.searchParams.get('after') ?? 0) || 0
        const limit = Number(state.url.searchParams.get('limit') ?? 100) || 100
        const events = await asPrincipal(state, await bearer(state), async (tx, principal) => {
          if (!Object.values(principal.permissions).some((levels) => levels.includes('admin'))) {
            return deny(tx, state, principal, null, 'reading the audit log needs admin on the project')
          }
          const found = await listAudit(tx, { projectId: principal.projectId, afterSeq: after, limit })
          await appendAudit(tx, context.keyring.auditKey, {
            projectId: principal.projectId,
            actor: `identity:${principal.identityId}`,
            action: 'audit.list',
            result: 'ok',
            requestId: state.requestId,
            ip: state.ip,
          })
          return { value: found }
        })
        sendJson(state.response, 200, { events })
      },
    ],
    [
      'GET',
      /^\/api\/v1\/secrets$/,
      async (state) => {
        const withValues = state.url.searchParams.get('values') !== 'false'
        const listed = await inEnvironment(state, await bearer(state), 'read', async (tx, scope) => ({
          environment: scope.environment,
          secrets: await secrets.listSecrets(context, tx, scope, withValues),
        }))
        sendJson(state.response, 200, listed)
      },
    ],
    ['POST', /^\/api\/v1\/secrets$/, write('create')],
    [
      'GET',
      /^\/api\/v1\/secrets\/([^/]+)$/,
      async (state) => {
        const name = secretName(state)
        const secret = await inEnvironment(state, await bearer(state), 'read', (tx, scope) =>
          secrets.getSecret(context, tx, scope, name),
        )
        sendJson(state.response, 200, secret, etag(secret.version))
      },
    ],
    ['PUT', /^\/api\/v1\/secrets\/([^/]+)$/, write('upsert')],
    ['PATCH', /^\/api\/v1\/secrets\/([^/]+)$/, write('update')],
    [
      'DELETE',
      /^\/api\/v1\/secrets\/([^/]+)$/,
      async (state) => {
        const name = secretName(state)
        await inEnvironment(state, await bearer(state), 'write', (tx, scope) =>
          secrets.deleteSecret(context, tx, scope, name, ifMatch(state)),
        )
        state.response.writeHead(204).end()
      },
    ],
    [
      'GET',
      /^\/api\/v1\/secrets\/([^/]+)\/versions$/,
      async (state) => {
        const name = secretName(state)
        const versions = await inEnvironment(state, await bearer(state), 'read', (tx, scope) =>
          secrets.listVersions(context, tx, scope, name),
        )
        sendJson(state.response, 200, { versions })
      },
    ],
    [
      'GET',
      /^\/api\/v1\/secrets\/([^/]+)\/versions\/([^/]+)$/,
      async (state) => {
        const name = secretName(state)
        const version = versionParam(state.params[1])
        const found = await inEnvironment(state, await bearer(state), 'read', (tx, scope) =>
          secrets.readVersion(context, tx, scope, name, version),
        )
        sendJson(state.response, 200, found, etag(found.version))
      },
    ],
    [
      'POST',
      /^\/api\/v1\/secrets\/([^/]+)\/rollback$/,
      async (state) => {
        const name = secretName(state)
        const claims = await bearer(state)
        const body = await readJsonObject(state.request)
        const version = versionParam(String(body.version ?? ''))
        const row = await inEnvironment(state, claims, 'write', (tx, scope) =>
          secrets.rollbackSecret(context, tx, scope, name, version, ifMatch(state)),
        )
        sendJson(state.response, 200, row, etag(row.version))
      },
    ],
  ]

  return (request, response) => {
    const state: RequestState = {
      request,
      response,
      url: new URL(request.url ?? '/', 'http://vault.invalid'),
      params: [],
      requestId: randomUUID(),
      ip: clientAddress(request, context.behindProxy),
    }
    response.setHeader('x-request-id', state.requestId)
    void route(state).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy()
        return
      }
      if (error instanceof ApiError) {
        sendJson(
          response,
          error.status,
          { error: { code: error.code, message: error.message } },
          error.headers,
        )
      } else if ((error as { code?: string }).code === 'ERR_INTEGRITY') {
        sendJson(response, 500, { error: { code: 'integrity_error', message: (error as Error).message } })
      } else {
        process.stderr.write(`vault server: request ${state.requestId} failed: ${(error as Error).name}\n`)
        sendJson(response, 500, {
          error: { code: 'internal_error', message: `internal error (request ${state.requestId})` },
        })
      }
    })
  }

  async function route(state: RequestState): Promise<void> {
    const { request, response, url } = state
    if (url.pathname === '/' && (request.method === 'HEAD' || request.method === 'GET')) {
      response
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end(request.method === 'GET' ? 'vault\n' : undefined)
      return
    }
    let pathMatched = false
    for (const [method, pattern, handler] of routes) {
      const match = pattern.exec(url.pathname)
      if (!match) continue
      pathMatched = true
      if (method !== request.method) continue
      state.params = match.slice(1)
      await handler(state)
      return
    }
    if (pathMatched)
      throw new ApiError(405, 'method_not_allowed', `${request.method} is not allowed on ${url.pathname}`)
    throw new ApiError(404, 'not_found', `no route ${url.pathname.slice(0, 200)}`)
  }
}
