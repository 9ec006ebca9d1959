/**
 * The token resources: POST /auth/token (client credentials, OAuth error bodies) and POST /auth/revoke.
 */
import { json } from '../http/api.js'
import { issueToken, OAuthError, revokeToken } from '../tokens/auth.js'
import type { VaultContext } from '../context.js'
import { RateLimiter } from '../http/rate-limiter.js'
import type { Resource } from '../http/router.js'

/** The authentication resources of a vault. */
export function authResources(context: VaultContext): Resource[] {
  const limiter = new RateLimiter({ perMinute: context.limits.tokenRequestsPerMinute })
  return [
    {
      path: '/api/v1/auth/token',
      methods: {
        POST: async (request) => {
          try {
            return json(200, await issueToken(context, request, limiter))
          } catch (error) {
            if (!(error instanceof OAuthError)) throw error
            return json(
              error.status,
              { error: error.error, error_description: error.description },
              error.headers,
            )
          }
        },
      },
    },
    {
      path: '/api/v1/auth/revoke',
      methods: {
        POST: async (request) => {
          await revokeToken(context, request)
          return json(200, {})
        },
      },
    },
  ]
}
