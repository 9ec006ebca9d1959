/**
 * Human sign-in for the CLI: POST /api/v1/auth/signin (user name and password, JSON) answers a bearer
 * token; POST /api/v1/auth/signout ends its session; GET /api/v1/auth/me says who the token is. A wrong
 * user name and a wrong password get the same 401; a source that failed too often gets a 429 with
 * Retry-After. The per-address limit of the token endpoint applies as well.
 */
import { json } from '../http/api.js'
import { sourceKey } from '../http/client-address.js'
import type { VaultContext } from '../context.js'
import { ApiError } from '../http/http.js'
import { humanOfRequest, issueHumanToken, signOutRequest } from '../humans/human-token.js'
import { SignInError } from '../humans/session.js'
import { RateLimiter } from '../http/rate-limiter.js'
import type { Resource } from '../http/router.js'
import { stringFields } from './admin-route.js'

/** The sign-in resources of a vault. */
export function humanAuthResources(context: VaultContext): Resource[] {
  const limiter = new RateLimiter({ perMinute: context.limits.tokenRequestsPerMinute })
  return [
    {
      path: '/api/v1/auth/signin',
      methods: {
        POST: async (request) => {
          const wait = limiter.take(sourceKey(request.origin.ip))
          if (wait > 0)
            throw new ApiError(429, 'rate_limited', 'too many sign-in requests; retry later', {
              'retry-after': String(wait),
            })
          const fields = await stringFields(request, {
            required: ['username', 'password'],
            optional: ['totp'],
          })
          try {
            const token = await issueHumanToken(context, {
              username: fields.username,
              password: fields.password,
              clientAddress: request.origin.ip,
              requestId: request.origin.requestId,
            })
            return json(200, token)
          } catch (error) {
            if (!(error instanceof SignInError)) throw error
            if (error.retryAfterSeconds > 0)
              throw new ApiError(429, 'rate_limited', error.message, {
                'retry-after': String(error.retryAfterSeconds),
              })
            throw new ApiError(401, 'invalid_credentials', error.message)
          }
        },
      },
    },
    {
      path: '/api/v1/auth/signout',
      methods: {
        POST: async (request) => {
          await signOutRequest(context, request)
          return json(200, {})
        },
      },
    },
    {
      path: '/api/v1/auth/me',
      methods: {
        GET: async (request) => {
          const human = await humanOfRequest(context, request)
          return json(200, {
            user: { username: human.username, role: human.role },
            expiresAt: human.expiresAt.toISOString(),
          })
        },
      },
    },
  ]
}
