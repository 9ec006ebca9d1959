/**
 * The vault's HTTP API as typed calls (whoami, environments, secrets, versions, rollback, health),
 * over an authenticated session. The project id, when configured, is sent as `?project=` so a token
 * of another project is refused (403) rather than silently used.
 */
import type { HttpMethod } from './http.js'
import type { VaultSession } from './session.js'

export interface SecretMetadata {
  name: string
  version: number
  createdAt: string
  updatedAt: string
  /** The value is a template whose `${OTHER}` the CLI resolves (src/client/resolve-templates.ts). */
  template?: boolean
  /** The value is not a secret (TZ, a domain): shown unmasked, never due for rotation. */
  plain?: boolean
}

export interface Secret extends SecretMetadata {
  value: string
}

/** The metadata fields alone (what the API returned may carry more, such as the value). */
export function secretMetadata({
  name,
  version,
  createdAt,
  updatedAt,
  template,
  plain,
}: SecretMetadata): SecretMetadata {
  return {
    name,
    version,
    createdAt,
    updatedAt,
    ...(template === true ? { template } : {}),
    ...(plain === true ? { plain } : {}),
  }
}

export interface SecretVersion {
  version: number
  createdAt: string
  actor?: string
  /** The identity's name, when the actor is an identity that still exists. */
  actorName?: string
  deleted?: boolean
}

export interface WhoAmI {
  identity: { id: string; name: string; clientId: string }
  project: { id: string; name: string }
  permissions: Record<string, string[]>
}

export interface Environment {
  slug: string
  name: string
}

export interface Health {
  status: string
  version?: string
  schemaVersion?: number
}

/** Options of a write: the version read before (sent as If-Match), and whether the value is a template. */
export interface WriteOptions {
  ifVersion?: number
  template?: boolean
  plain?: boolean
}

/** Typed calls of the vault API. */
export class VaultApi {
  constructor(readonly session: VaultSession) {}

  async whoami(): Promise<WhoAmI> {
    return this.call<WhoAmI>('GET', 'whoami')
  }

  async environments(): Promise<Environment[]> {
    return (await this.call<{ environments: Environment[] }>('GET', 'environments')).environments
  }

  /** Every secret of the environment, with values (one request). */
  async listSecrets(environment: string | undefined): Promise<Secret[]> {
    return (await this.call<{ secrets: Secret[] }>('GET', 'secrets', { query: { environment } })).secrets
  }

  /** Every secret's metadata, without values. */
  async listSecretNames(environment: string | undefined): Promise<SecretMetadata[]> {
    const query = { environment, values: 'false' }
    return (await this.call<{ secrets: SecretMetadata[] }>('GET', 'secrets', { query })).secrets
  }

  async getSecret(name: string, environment: string | undefined): Promise<Secret> {
    return this.call<Secret>('GET', `secrets/${encodeURIComponent(name)}`, { query: { environment } })
  }

  /** Creates or replaces a secret (PUT). */
  async putSecret(name: string, value: string, environment: string | undefined, options: WriteOptions = {}) {
    return this.write('PUT', name, value, { ...options, environment })
  }

  /** Updates an existing secret (PATCH, the seed's call). */
  async patchSecret(
    name: string,
    value: string,
    environment: string | undefined,
    options: WriteOptions = {},
  ) {
    return this.write('PATCH', name, value, { ...options, environment })
  }

  async deleteSecret(
    name: string,
    environment: string | undefined,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.call('DELETE', `secrets/${encodeURIComponent(name)}`, { ...options, query: { environment } })
  }

  async versions(name: string, environment: string | undefined): Promise<SecretVersion[]> {
    const path = `secrets/${encodeURIComponent(name)}/versions`
    return (await this.call<{ versions: SecretVersion[] }>('GET', path, { query: { environment } })).versions
  }

  /** The value of one version of a secret (an old one too). */
  async secretVersion(name: string, version: number, environment: string | undefined): Promise<Secret> {
    const path = `secrets/${encodeURIComponent(name)}/versions/${version}`
    return this.call<Secret>('GET', path, { query: { environment } })
  }

  /** A new version holding `version`'s value; `ifVersion` makes it conditional on the current version. */
  async rollback(
    name: string,
    version: number,
    environment: string | undefined,
    options: { ifVersion?: number } = {},
  ): Promise<SecretMetadata> {
    const path = `secrets/${encodeURIComponent(name)}/rollback`
    return this.call<SecretMetadata>('POST', path, {
      query: { environment },
      json: { version },
      ifVersion: options.ifVersion,
    })
  }

  /** The unauthenticated health endpoint. */
  async health(): Promise<Health> {
    return (await this.session.anonymous<Health>({ method: 'GET', path: 'api/v1/health' })).body
  }

  /** HTTP HEAD on the vault URL (the seed's connectivity check); returns the status. */
  async head(): Promise<number> {
    return (await this.session.anonymous({ method: 'HEAD', path: '' })).status
  }

  private async write(
    method: 'PUT' | 'PATCH',
    name: string,
    value: string,
    at: WriteOptions & { environment: string | undefined },
  ): Promise<SecretMetadata> {
    return this.call<SecretMetadata>(method, `secrets/${encodeURIComponent(name)}`, {
      query: { environment: at.environment },
      json: { value, ...(at.template ? { template: true } : {}), ...(at.plain ? { plain: true } : {}) },
      ifVersion: at.ifVersion,
    })
  }

  private async call<T>(method: HttpMethod, path: string, request: ApiRequest = {}): Promise<T> {
    const { query = {}, json, ifVersion } = request
    const headers = ifVersion === undefined ? undefined : { 'if-match': `"${ifVersion}"` }
    const searchParams = { ...query, project: this.session.settings.projectId }
    const response = await this.session.request<T>({
      method,
      path: `api/v1/${path}`,
      searchParams,
      json,
      headers,
    })
    return response.body
  }
}

/** What one call sends besides method and path: query parameters, a JSON body, the If-Match version. */
interface ApiRequest extends WriteOptions {
  query?: Record<string, string | undefined>
  json?: unknown
}
