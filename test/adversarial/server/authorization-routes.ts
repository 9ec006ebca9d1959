/**
 * The route side of the authorisation matrix: the keys (`METHOD /path/:param`) of a route table, the
 * class of each route (who may call it, by design), and the attacking requests of a (route, principal)
 * cell with the path parameters filled with another principal's resources. A route missing from
 * `classes` has no class, and the matrix test fails until it gets one.
 */
import type { Resource } from '../../../src/server/http/router.js'
import type { HumanSession } from '../../../src/server/humans/session.js'

export type Principal =
  | 'none'
  | 'malformed'
  | 'expired'
  | 'wrongSignature'
  | 'foreignKey'
  | 'algNone'
  | 'revoked'
  | 'endedHuman'
  | 'otherProject'
  | 'devOnly'
  | 'devAdmin'
  | 'writeOnly'
  | 'humanMember'
  | 'humanAdmin'

/**
 * public: no credential needed. own: any valid token, about the caller itself. secrets: read on the
 * environment. secrets-write: write on the environment. project-admin: admin on the project.
 * human: any signed-in human. human-admin: a human with the admin role. console-*: the same for the web
 * console's cookie session.
 */
export type RouteClass =
  | 'public'
  | 'own'
  | 'secrets'
  | 'secrets-write'
  | 'project-admin'
  | 'human'
  | 'human-admin'
  | 'console-public'
  | 'console'
  | 'console-admin'

const classes: Record<string, RouteClass> = {
  'GET /': 'public',
  'GET /api/v1/health': 'public',
  'GET /api/v1/openapi.json': 'public',
  'GET /api/v1/openapi.yaml': 'public',
  'POST /api/v1/auth/token': 'public',
  'POST /api/v1/auth/revoke': 'public',
  'POST /api/v1/auth/signin': 'public',
  'GET /api/v1/whoami': 'own',
  'GET /api/v1/environments': 'own',
  'GET /api/v1/audit': 'project-admin',
  'GET /api/v1/secrets': 'secrets',
  'POST /api/v1/secrets': 'secrets-write',
  'GET /api/v1/secrets/:name': 'secrets',
  'PUT /api/v1/secrets/:name': 'secrets-write',
  'PATCH /api/v1/secrets/:name': 'secrets-write',
  'DELETE /api/v1/secrets/:name': 'secrets-write',
  'GET /api/v1/secrets/:name/versions': 'secrets',
  'GET /api/v1/secrets/:name/versions/:version': 'secrets',
  'POST /api/v1/secrets/:name/rollback': 'secrets-write',
  'GET /api/v1/events': 'secrets',
  'POST /api/v1/auth/signout': 'human',
  'GET /api/v1/auth/me': 'human',
  'GET /api/v1/admin/projects': 'human',
  'POST /api/v1/admin/projects': 'human-admin',
  'GET /api/v1/admin/projects/:project/environments': 'human',
  'POST /api/v1/admin/projects/:project/environments': 'human-admin',
  'GET /api/v1/admin/projects/:project/identities': 'human-admin',
  'POST /api/v1/admin/projects/:project/identities': 'human-admin',
  'DELETE /api/v1/admin/projects/:project/identities/:identity': 'human-admin',
  'POST /api/v1/admin/projects/:project/identities/:identity/rotate-secret': 'human-admin',
  'PUT /api/v1/admin/projects/:project/identities/:identity/oidc': 'human-admin',
  'DELETE /api/v1/admin/projects/:project/identities/:identity/oidc': 'human-admin',
  'GET /api/v1/admin/projects/:project/webhooks': 'human-admin',
  'POST /api/v1/admin/projects/:project/webhooks': 'human-admin',
  'DELETE /api/v1/admin/projects/:project/webhooks/:id': 'human-admin',
  'GET /api/v1/admin/audit': 'human-admin',
  'GET /api/v1/admin/audit/verify': 'human-admin',
  'GET /api/v1/admin/users': 'human-admin',
  'POST /api/v1/admin/users': 'human-admin',
  'DELETE /api/v1/admin/users/:username': 'human-admin',
  'PUT /api/v1/admin/users/:username/password': 'human-admin',
  'GET /console/static/console.css': 'console-public',
  'GET /console': 'console-public',
  'GET /console/sign-in': 'console-public',
  'POST /console/sign-in': 'console-public',
  'POST /console/sign-out': 'console',
  'GET /console/projects': 'console',
  'GET /console/projects/:project/environments/:environment': 'console',
  'POST /console/projects/:project/environments/:environment/secrets': 'console',
  'GET /console/projects/:project/environments/:environment/secrets/:name': 'console',
  'POST /console/projects/:project/environments/:environment/secrets/:name': 'console',
  'POST /console/projects/:project/environments/:environment/secrets/:name/reveal': 'console',
  'GET /console/projects/:project/environments/:environment/secrets/:name/delete': 'console',
  'POST /console/projects/:project/environments/:environment/secrets/:name/delete': 'console',
  'GET /console/projects/:project/environments/:environment/secrets/:name/rollback': 'console',
  'POST /console/projects/:project/environments/:environment/secrets/:name/rollback': 'console',
  'GET /console/projects/:project/identities': 'console-admin',
  'POST /console/projects/:project/identities': 'console-admin',
  'GET /console/projects/:project/identities/:identity/rotate': 'console-admin',
  'POST /console/projects/:project/identities/:identity/rotate': 'console-admin',
  'GET /console/projects/:project/identities/:identity/revoke': 'console-admin',
  'POST /console/projects/:project/identities/:identity/revoke': 'console-admin',
  'GET /console/projects/:project/webhooks': 'console-admin',
  'POST /console/projects/:project/webhooks': 'console-admin',
  'GET /console/projects/:project/webhooks/:id/delete': 'console-admin',
  'POST /console/projects/:project/webhooks/:id/delete': 'console-admin',
  'GET /console/projects/:project/audit': 'console-admin',
}

/** The class of a route key, or undefined for a route nobody classified. */
export function classOf(key: string): RouteClass | undefined {
  return classes[key]
}

/** `METHOD path` of every method of every resource (HEAD is GET's). */
export function routeKeys(resources: Resource[]): string[] {
  return resources.flatMap((resource) =>
    Object.keys(resource.methods).map((method) => `${method} ${resource.path}`),
  )
}

/** Project A's resources the attacks name, and the console sessions. */
export interface Target {
  projectName: string
  projectId: string
  otherProjectId: string
  identityId: string
  identityClientId: string
  webhookId: string
  sessions: { admin: HumanSession; member: HumanSession; ended: HumanSession }
  canaryNames: { prod: string; staging: string; dev: string }
  identityNames: string[]
}

/** One attacking request; `hidden` are strings its answer must not hold unless the request sent them. */
export interface Attack {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  hidden: string[]
  /** The request acts on the caller's own data (its own project): only the leak check applies. */
  own?: boolean
}

function bodyOf(key: string): unknown {
  if (key.startsWith('GET ')) return undefined
  if (key === 'POST /api/v1/secrets') return { name: 'CANARY_MATRIX_PROD_KEY', value: 'attacker-write' }
  if (/^(PUT|PATCH) \/api\/v1\/secrets\/:name$/.test(key)) return { value: 'attacker-write' }
  if (key.endsWith('/rollback')) return { version: 1 }
  if (key === 'POST /api/v1/admin/projects') return { name: 'attacker-project' }
  if (key.endsWith('/environments')) return { slug: 'attacker-env' }
  if (key.endsWith('/identities')) return { name: 'attacker-identity', permissions: '*=read,write,admin' }
  if (key.endsWith('/webhooks')) return { url: 'http://127.0.0.1:9/attacker-hook' }
  if (key.startsWith('PUT ') && key.endsWith('/oidc'))
    return { issuer: 'https://attacker.example', audience: 'attacker', subject: 'repo:attacker/x:*' }
  if (key === 'POST /api/v1/admin/users')
    return { username: 'attacker', password: 'attacker password 1234', role: 'admin' }
  if (key.endsWith('/password')) return { password: 'attacker password 1234' }
  return undefined
}

function formOf(key: string, csrf: string): string {
  const form: Record<string, string> = { csrf, confirm: 'yes' }
  if (key.endsWith('/secrets')) Object.assign(form, { name: 'ATTACKER_KEY', value: 'attacker-write' })
  if (key.endsWith('/secrets/:name')) Object.assign(form, { value: 'attacker-write', current: '2' })
  if (key.endsWith('/rollback')) Object.assign(form, { version: '1', current: '2' })
  if (key.endsWith('/identities'))
    Object.assign(form, { name: 'attacker-identity', permissions: '*=read,write,admin' })
  if (key.endsWith('/webhooks')) Object.assign(form, { url: 'http://127.0.0.1:9/attacker-hook' })
  return new URLSearchParams(form).toString()
}

/** The console cookie each principal brings (the machine ones bring only their bearer token). */
function cookieOf(principal: Principal, target: Target): { cookie?: string; csrf: string } {
  const { sessions } = target
  if (principal === 'humanMember')
    return { cookie: `vault_session=${sessions.member.id}`, csrf: sessions.member.csrfToken }
  if (principal === 'endedHuman')
    return { cookie: `vault_session=${sessions.ended.id}`, csrf: sessions.ended.csrfToken }
  if (principal === 'malformed') return { cookie: 'vault_session=%00not-a-session', csrf: 'x' }
  if (principal === 'wrongSignature')
    return { cookie: `vault_session=${sessions.admin.id.slice(0, -2)}xx`, csrf: sessions.admin.csrfToken }
  return { csrf: '' }
}

/** The attacking requests of one cell. */
export function fill(key: string, target: Target, principal: Principal): Attack[] {
  const [method, pattern] = key.split(' ') as [string, string]
  const names = target.canaryNames
  const machine = ['otherProject', 'devOnly', 'devAdmin', 'writeOnly'].includes(principal)
  const hidden: string[] = []
  if (principal === 'otherProject')
    hidden.push(names.prod, names.staging, names.dev, target.projectId, ...target.identityNames)
  const own = {
    devOnly: 'matrix-dev-only',
    devAdmin: 'matrix-dev-admin',
    writeOnly: 'matrix-prod-write-only',
  }
  if (machine && principal !== 'otherProject')
    hidden.push(
      names.prod,
      names.staging,
      ...target.identityNames.filter((name) => name !== own[principal as keyof typeof own]),
    )
  if (principal === 'humanMember') hidden.push(...target.identityNames, target.webhookId)
  if (principal !== 'devOnly') hidden.push(target.identityId, target.identityClientId)

  if (pattern.startsWith('/console') || pattern === '/') {
    const { cookie, csrf } = cookieOf(principal, target)
    const path = pattern
      .replace(':project', target.projectName)
      .replace(':environment', 'prod')
      .replace(':name', names.prod)
      .replace(':identity', target.identityId)
      .replace(':id', target.webhookId)
    const headers: Record<string, string> = cookie ? { cookie } : {}
    if (method !== 'POST') return [{ method, path, headers, hidden }]
    return [
      {
        method,
        path,
        headers: {
          ...headers,
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'same-origin',
        },
        body: formOf(key, csrf),
        hidden,
      },
    ]
  }

  const body = bodyOf(key)
  const attacks: Attack[] = []
  const add = (path: string, query: string, own = false) =>
    attacks.push({
      own,
      method,
      path: `${path}${query ? `?${query}` : ''}`,
      headers: {},
      body: body === undefined ? undefined : JSON.stringify(body),
      hidden,
    })

  if (pattern.startsWith('/api/v1/admin/')) {
    const withProject = (project: string) =>
      pattern
        .replace(':project', encodeURIComponent(project))
        .replace(':identity', target.identityId)
        .replace(':id', target.webhookId)
        .replace(':username', 'admin')
    add(
      withProject(target.projectName),
      pattern === '/api/v1/admin/audit' ? `project=${target.projectName}` : '',
    )
    if (pattern.includes(':project')) add(withProject(target.projectId), '')
    return attacks
  }

  const secretPath = (name: string) => pattern.replace(':name', name).replace(':version', '1')
  if (principal === 'otherProject') {
    // A's project by id and by name in the query, and B's own namespace with A's names
    add(secretPath(names.prod), `environment=prod&project=${target.projectId}`)
    add(secretPath(names.prod), `environment=prod&project=${target.projectName}`)
    if ((!pattern.startsWith('/api/v1/secrets') || method === 'GET') && pattern !== '/api/v1/events')
      add(secretPath(names.prod), 'environment=prod', true)
    return attacks
  }
  if (principal === 'humanMember') {
    add(secretPath(names.prod), `project=${target.projectName}`)
    return attacks
  }
  if (principal === 'writeOnly' && pattern.startsWith('/api/v1/secrets') && method !== 'GET') {
    // write on prod is its right: attack staging only
    add(secretPath(names.staging), 'environment=staging')
    return attacks
  }
  if (principal === 'devOnly' || principal === 'devAdmin' || principal === 'writeOnly') {
    add(secretPath(names.prod), 'environment=prod')
    add(secretPath(names.staging), 'environment=staging')
    if (principal !== 'writeOnly') add(secretPath(names.prod), `environment=prod&project=${target.projectId}`)
    return attacks
  }
  add(secretPath(names.prod), `environment=prod&project=${target.projectId}`)
  return attacks
}
