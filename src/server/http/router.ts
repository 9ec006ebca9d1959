/**
 * Routes by resource: each resource declares its path with named parameters (`/secrets/:name`) and a
 * handler per method. GET also answers HEAD (same status and headers, no body), a known path with an
 * unknown method is a 405 carrying `Allow`, anything else a 404.
 */
import { json, type ApiRequest, type ApiResponse, type Handler } from './api.js'
import { ApiError } from './http.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** One resource: a path pattern and the handler of each method it answers. */
export interface Resource {
  path: string
  methods: Partial<Record<Method, Handler>>
}

interface CompiledResource {
  pattern: RegExp
  names: string[]
  methods: Partial<Record<string, Handler>>
  allow: string
}

function compile(resource: Resource): CompiledResource {
  const names: string[] = []
  const source = resource.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      names.push(segment.slice(1))
      return '([^/]+)'
    })
    .join('/')
  const methods: Partial<Record<string, Handler>> = { ...resource.methods }
  if (methods.GET) methods.HEAD = methods.GET
  return { pattern: new RegExp(`^${source}$`), names, methods, allow: Object.keys(methods).join(', ') }
}

function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new ApiError(400, 'bad_request', 'a path segment holds a malformed percent escape')
  }
}

/** Builds the dispatcher of a set of resources. */
export function createRouter(resources: Resource[]): Handler {
  const compiled = resources.map(compile)
  return async (request: ApiRequest): Promise<ApiResponse> => {
    const path = request.url.pathname
    for (const resource of compiled) {
      const match = resource.pattern.exec(path)
      if (!match) continue
      const handler = resource.methods[request.method]
      if (!handler) {
        const error = new ApiError(405, 'method_not_allowed', `${request.method} is not allowed on ${path}`)
        return json(
          405,
          { error: { code: error.apiCode, message: error.message } },
          { allow: resource.allow },
        )
      }
      const params = Object.fromEntries(
        resource.names.map((name, index) => [name, decodeParam(match[index + 1]!)]),
      )
      return handler({ ...request, params })
    }
    throw new ApiError(404, 'not_found', `no route ${path.slice(0, 200)}`)
  }
}
