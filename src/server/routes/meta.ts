/**
 * The resources that need no token: `/` (a liveness line; a browser asking for HTML goes to the web
 * console), /health and the OpenAPI document.
 */
import { header, json, type ApiResponse } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { openApiDocument } from '../http/openapi.js'
import type { Resource } from '../http/router.js'
import { schemaVersion } from '../migrations.js'

/** The unauthenticated resources of a vault. */
export function metaResources(context: VaultContext): Resource[] {
  return [
    {
      path: '/',
      methods: {
        GET: async (request): Promise<ApiResponse> =>
          (header(request, 'accept') ?? '').includes('text/html')
            ? { status: 303, headers: { location: '/console/projects' }, text: '' }
            : { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, text: 'vault\n' },
      },
    },
    {
      path: '/api/v1/health',
      methods: {
        GET: async () => json(200, { status: 'ok', version: context.version, schemaVersion }),
      },
    },
    {
      path: '/api/v1/openapi.json',
      methods: { GET: async () => json(200, (await openApiDocument()).json) },
    },
    {
      path: '/api/v1/openapi.yaml',
      methods: {
        GET: async () => ({
          status: 200,
          headers: { 'content-type': 'application/yaml; charset=utf-8' },
          text: (await openApiDocument()).yaml,
        }),
      },
    },
  ]
}
