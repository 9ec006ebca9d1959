/**
 * The vault's HTTP API under /api/v1. `createApiHandler` is the whole API as one function (ApiRequest
 * in, ApiResponse out): the per-source rate limit, the resource router and the mapping of errors to
 * answers (failures.ts: a storage fault is a 503). `createVaultApp` adapts it to node:http: client
 * address, request id, bounded body, and the security headers of every answer.
 */
import { randomUUID } from 'node:crypto'
import type { RequestListener } from 'node:http'
import type { ApiRequest, ApiResponse, Handler } from './api.js'
import { createAuthorizer } from '../authorize.js'
import { consoleResources } from '../console/index.js'
import { clientAddress, sourceKey } from './client-address.js'
import type { VaultContext } from '../context.js'
import { ApiError, errorResponse, readBoundedBody, writeResponse } from './http.js'
import { unexpectedFailure } from './failures.js'
import { IntegrityError } from '../../errors.js'
import { RateLimiter } from './rate-limiter.js'
import { createRouter, type Resource } from './router.js'
import { adminAuditResources } from '../routes/admin-audit.js'
import { adminIdentityResources } from '../routes/admin-identities.js'
import { adminProjectResources } from '../routes/admin-projects.js'
import { adminUserResources } from '../routes/admin-users.js'
import { adminWebhookResources } from '../routes/admin-webhooks.js'
import { authResources } from '../routes/auth.js'
import { eventResources } from '../routes/events.js'
import { humanAuthResources } from '../routes/humans.js'
import { metaResources } from '../routes/meta.js'
import { principalResources } from '../routes/principal.js'
import { secretResources } from '../routes/secrets.js'

/** Every resource of the API, in routing order (openapi.yaml describes exactly these). */
export function apiResources(context: VaultContext, authorizer = createAuthorizer(context)): Resource[] {
  return [
    ...metaResources(context),
    ...authResources(context),
    ...principalResources(context, authorizer),
    ...secretResources(context, authorizer),
    ...eventResources(context, authorizer),
    ...humanAuthResources(context),
    ...adminProjectResources(context),
    ...adminIdentityResources(context),
    ...adminWebhookResources(context),
    ...adminAuditResources(context),
    ...adminUserResources(context),
  ]
}

/** The vault API and the web console (`/`, `/console/...`) as one socket-free function. */
export function createApiHandler(context: VaultContext): Handler {
  const route = createRouter([...apiResources(context), ...consoleResources(context)])
  const perSource = new RateLimiter({ perMinute: context.limits.requestsPerMinute })

  return async (request: ApiRequest): Promise<ApiResponse> => {
    try {
      const wait = perSource.take(sourceKey(request.origin.ip))
      if (wait > 0) {
        throw new ApiError(429, 'rate_limited', 'too many requests from this address; retry later', {
          'retry-after': String(wait),
        })
      }
      return await route(request)
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error)
      if (error instanceof IntegrityError) {
        return { status: 500, json: { error: { code: 'integrity_error', message: error.message } } }
      }
      const failure = unexpectedFailure(error, {
        engine: context.driver.engine,
        requestId: request.origin.requestId,
      })
      return {
        status: failure.status,
        json: { error: { code: failure.apiCode, message: failure.message } },
        headers: failure.headers,
      }
    }
  }
}

/** Builds the node:http request listener of the vault API. */
export function createVaultApp(context: VaultContext): RequestListener {
  const handle = createApiHandler(context)
  return (message, response) => {
    const requestId = randomUUID()
    response.setHeader('x-request-id', requestId)
    let body: Promise<Buffer> | undefined
    const request: ApiRequest = {
      method: message.method ?? 'GET',
      url: new URL(message.url ?? '/', 'http://vault.invalid'),
      headers: message.headers,
      params: {},
      origin: { ip: clientAddress(message, context.trustProxy), requestId },
      body: () => (body ??= readBoundedBody(message)),
    }
    void handle(request)
      .then((answer) => {
        if (response.headersSent) return
        writeResponse(response, answer, { head: request.method === 'HEAD', tls: context.tls })
      })
      .catch(() => response.destroy())
  }
}
