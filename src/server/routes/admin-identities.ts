/**
 * The admin API's machine identities: GET/POST /api/v1/admin/projects/:project/identities, DELETE
 * .../identities/:identity (revoke), POST .../identities/:identity/rotate-secret, and PUT or DELETE
 * .../identities/:identity/oidc (the OIDC trust of its CI jobs). A new or rotated client secret is in
 * that one answer only. Admins only.
 */
import { json } from '../http/api.js'
import type { VaultContext } from '../context.js'
import {
  createIdentityOp,
  listIdentitiesOp,
  revokeIdentityOp,
  rotateIdentitySecretOp,
  updateIdentityOidcOp,
} from '../operations/identities.js'
import { ApiError, readJsonObject } from '../http/http.js'
import type { ApiRequest } from '../http/api.js'
import type { Resource } from '../http/router.js'
import type { OidcTrustInput } from '../tokens/oidc-trust.js'
import { adminHandler, stringFields } from './admin-route.js'

/** The identity resources of the admin API. */
export function adminIdentityResources(context: VaultContext): Resource[] {
  const base = '/api/v1/admin/projects/:project/identities'
  return [
    {
      path: base,
      methods: {
        GET: adminHandler(context, async (call, request) =>
          json(200, { identities: await listIdentitiesOp(call, { project: request.params.project! }) }),
        ),
        POST: adminHandler(context, async (call, request) => {
          const fields = await stringFields(request, { required: ['name', 'permissions'] })
          const created = await createIdentityOp(call, { project: request.params.project!, ...fields })
          return json(201, { identity: created })
        }),
      },
    },
    {
      path: `${base}/:identity`,
      methods: {
        DELETE: adminHandler(context, async (call, request) => {
          await revokeIdentityOp(call, {
            project: request.params.project!,
            identity: request.params.identity!,
          })
          return json(200, { revoked: request.params.identity })
        }),
      },
    },
    {
      path: `${base}/:identity/rotate-secret`,
      methods: {
        POST: adminHandler(context, async (call, request) =>
          json(200, {
            identity: await rotateIdentitySecretOp(call, {
              project: request.params.project!,
              identity: request.params.identity!,
            }),
          }),
        ),
      },
    },
    {
      path: `${base}/:identity/oidc`,
      methods: {
        PUT: adminHandler(context, async (call, request) =>
          json(200, {
            identity: await updateIdentityOidcOp(call, {
              project: request.params.project!,
              identity: request.params.identity!,
              oidc: await oidcTrustBody(request),
            }),
          }),
        ),
        DELETE: adminHandler(context, async (call, request) =>
          json(200, {
            identity: await updateIdentityOidcOp(call, {
              project: request.params.project!,
              identity: request.params.identity!,
              oidc: null,
            }),
          }),
        ),
      },
    },
  ]
}

/** `{"issuer", "audience", "subject", "claims": ["key=value", ...]}`: strings only, bounded. */
async function oidcTrustBody(request: ApiRequest): Promise<OidcTrustInput> {
  const body = await readJsonObject(request)
  const text = (name: string) => {
    const value = Object.hasOwn(body, name) ? body[name] : undefined
    if (value !== undefined && (typeof value !== 'string' || value.length > 2048))
      throw new ApiError(400, 'bad_request', `"${name}" must be a string of at most 2048 characters`)
    return value as string | undefined
  }
  const claims = Object.hasOwn(body, 'claims') ? body.claims : []
  if (
    !Array.isArray(claims) ||
    claims.length > 32 ||
    claims.some((claim) => typeof claim !== 'string' || claim.length > 512)
  )
    throw new ApiError(400, 'bad_request', '"claims" must be a list of at most 32 "key=value" strings')
  return {
    issuer: text('issuer'),
    audience: text('audience'),
    subject: text('subject'),
    claims: claims as string[],
  }
}
