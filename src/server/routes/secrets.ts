/**
 * The secrets resources of an environment (`?environment=`): the collection (list, create), one secret
 * (read, upsert, update, delete with If-Match / If-None-Match and ETags), its versions, one version and
 * a rollback.
 */
import { header, json, type ApiRequest, type Handler } from '../http/api.js'
import type { createAuthorizer } from '../authorize.js'
import type { VaultContext } from '../context.js'
import { ApiError, readJsonObject } from '../http/http.js'
import type { Resource } from '../http/router.js'
import type { Preconditions } from '../http/preconditions.js'
import * as secrets from '../secrets/secrets.js'
import { isSecretName } from '../../text/secret-name.js'

/** A secret name, or a 400 naming the rule (UPPER_SNAKE_CASE, at most 256 characters). */
export function checkedName(name: string): string {
  if (!isSecretName(name)) {
    throw new ApiError(400, 'invalid_name', 'secret names match ^[A-Z][A-Z0-9_]*$ (UPPER_SNAKE_CASE)')
  }
  return name
}

function versionNumber(text: string | undefined): number {
  if (!text || !/^[1-9][0-9]{0,9}$/.test(text))
    throw new ApiError(400, 'bad_request', 'a version is a positive integer')
  return Number(text)
}

function preconditions(request: ApiRequest): Preconditions {
  return { ifMatch: header(request, 'if-match'), ifNoneMatch: header(request, 'if-none-match') }
}

const etag = (version: number) => ({ etag: `"${version}"` })

/** The secrets resources of a vault. */
export function secretResources(
  context: VaultContext,
  authorizer: ReturnType<typeof createAuthorizer>,
): Resource[] {
  const { inEnvironment, authenticate } = authorizer

  function valueOf(body: Record<string, unknown>): string {
    const value = body.value
    if (typeof value !== 'string')
      throw new ApiError(400, 'bad_request', 'the body needs a string field "value"')
    if (!(value as string & { isWellFormed(): boolean }).isWellFormed())
      throw new ApiError(400, 'invalid_utf8', 'the value holds a lone surrogate, which is not valid UTF-8')
    if (Buffer.byteLength(value) > context.limits.maxValueBytes) {
      throw new ApiError(
        413,
        'value_too_large',
        `secret values are limited to ${context.limits.maxValueBytes} bytes`,
      )
    }
    return value
  }

  const write =
    (mode: secrets.WriteMode): Handler =>
    async (request) => {
      await authenticate(request)
      const body = await readJsonObject(request)
      const name = checkedName(
        mode === 'create' ? (typeof body.name === 'string' ? body.name : '') : (request.params.name ?? ''),
      )
      const value = valueOf(body)
      if (body.template !== undefined && typeof body.template !== 'boolean')
        throw new ApiError(400, 'bad_request', 'the field "template" must be true or false')
      const template = body.template === true
      if (body.plain !== undefined && typeof body.plain !== 'boolean')
        throw new ApiError(400, 'bad_request', 'the field "plain" must be true or false')
      const plain = body.plain === true
      const result = await inEnvironment(request, 'write', (at) =>
        secrets.writeSecret(at, { name, value, mode, template, plain, ...preconditions(request) }),
      )
      return json(result.created ? 201 : 200, result.secret, etag(result.secret.version))
    }

  return [
    {
      path: '/api/v1/secrets',
      methods: {
        GET: async (request) => {
          const withValues = request.url.searchParams.get('values') !== 'false'
          const listed = await inEnvironment(request, 'read', async (at) => ({
            environment: at.scope.environment,
            secrets: await secrets.listSecrets(at, withValues),
          }))
          return json(200, listed)
        },
        POST: write('create'),
      },
    },
    {
      path: '/api/v1/secrets/:name',
      methods: {
        GET: async (request) => {
          const name = checkedName(request.params.name!)
          const secret = await inEnvironment(request, 'read', (at) => secrets.getSecret(at, name))
          return json(200, secret, etag(secret.version))
        },
        PUT: write('upsert'),
        PATCH: write('update'),
        DELETE: async (request) => {
          const name = checkedName(request.params.name!)
          await inEnvironment(request, 'write', (at) =>
            secrets.deleteSecret(at, name, preconditions(request)),
          )
          return { status: 204 }
        },
      },
    },
    {
      path: '/api/v1/secrets/:name/versions',
      methods: {
        GET: async (request) => {
          const name = checkedName(request.params.name!)
          const versions = await inEnvironment(request, 'read', (at) => secrets.listVersions(at, name))
          return json(200, { versions })
        },
      },
    },
    {
      path: '/api/v1/secrets/:name/versions/:version',
      methods: {
        GET: async (request) => {
          const name = checkedName(request.params.name!)
          const version = versionNumber(request.params.version)
          const found = await inEnvironment(request, 'read', (at) => secrets.readVersion(at, name, version))
          return json(200, found, etag(found.version))
        },
      },
    },
    {
      path: '/api/v1/secrets/:name/rollback',
      methods: {
        POST: async (request) => {
          const name = checkedName(request.params.name!)
          await authenticate(request)
          const body = await readJsonObject(request)
          const version = versionNumber(String(body.version ?? ''))
          const row = await inEnvironment(request, 'write', (at) =>
            secrets.rollbackSecret(at, { name, version, ...preconditions(request) }),
          )
          return json(200, row, etag(row.version))
        },
      },
    },
  ]
}
