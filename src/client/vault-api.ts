/**
 * The vault's HTTP API as typed calls (whoami, environments, secrets, versions, rollback, health),
 * over an authenticated session. The project id, when configured, is sent as `?project=` so a token
 * of another project is refused (403) rather than silently used. Every answer is decoded by its shape
 * (api-answers.ts) before a caller sees it: a secret name outside the server's rule never leaves here.
 */
import {
  environmentsAnswer,
  healthAnswer,
  secretAnswer,
  secretVersionAnswer,
  secretListAnswer,
  secretMetadataAnswer,
  versionsAnswer,
  whoAmIAnswer,
  type Environment,
  type Health,
  type Secret,
  type SecretMetadata,
  type SecretVersion,
  type WhoAmI,
} from './api-answers.js'
import type { HttpMethod } from './http.js'
import type { VaultSession } from './session.js'
import { decodeAnswer, type Decoder } from './vault-answer.js'

export type { Environment, Health, Secret, SecretMetadata, SecretVersion, WhoAmI } from './api-answers.js'

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

/** Options of a write: the version read before (sent as If-Match), and whether the value is a template or plain. */
export interface WriteOptions {
  ifVersion?: number
  template?: boolean
  plain?: boolean
}

/** Typed calls of the vault API. */
export class VaultApi {
  constructor(readonly session: VaultSession) {}

  async whoami(): Promise<WhoAmI> {
    return this.call('GET', 'whoami', whoAmIAnswer)
  }

  async environments(): Promise<Environment[]> {
    return this.call('GET', 'environments', environmentsAnswer)
  }

  /** Every secret of the environment, with values (one request). */
  async listSecrets(environment: string | undefined): Promise<Secret[]> {
    return this.call('GET', 'secrets', secretListAnswer(true), {
      query: { environment },
      maxBodyBytes: maxListBytes,
    })
  }

  /** Every secret's metadata, without values. */
  async listSecretNames(environment: string | undefined): Promise<SecretMetadata[]> {
    const query = { environment, values: 'false' }
    return this.call('GET', 'secrets', secretListAnswer(false), { query, maxBodyBytes: maxListBytes })
  }

  async getSecret(name: string, environment: string | undefined): Promise<Secret> {
    return this.call('GET', `secrets/${encodeURIComponent(name)}`, secretAnswer, { query: { environment } })
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
    await this.call('DELETE', `secrets/${encodeURIComponent(name)}`, ignored, {
      ...options,
      query: { environment },
    })
  }

  async versions(name: string, environment: string | undefined): Promise<SecretVersion[]> {
    const path = `secrets/${encodeURIComponent(name)}/versions`
    return this.call('GET', path, versionsAnswer, { query: { environment }, maxBodyBytes: maxListBytes })
  }

  /** The value of one version of a secret (an old one too). */
  async secretVersion(name: string, version: number, environment: string | undefined): Promise<Secret> {
    const path = `secrets/${encodeURIComponent(name)}/versions/${version}`
    return this.call('GET', path, secretVersionAnswer, { query: { environment } })
  }

  /** A new version holding `version`'s value; `ifVersion` makes it conditional on the current version. */
  async rollback(
    name: string,
    version: number,
    environment: string | undefined,
    options: { ifVersion?: number } = {},
  ): Promise<SecretMetadata> {
    const path = `secrets/${encodeURIComponent(name)}/rollback`
    return this.call('POST', path, secretMetadataAnswer, {
      query: { environment },
      json: { version },
      ifVersion: options.ifVersion,
    })
  }

  /** The unauthenticated health endpoint. */
  async health(): Promise<Health> {
    const { body } = await this.session.anonymous({ method: 'GET', path: 'api/v1/health' })
    return decodeAnswer('GET /api/v1/health', body, healthAnswer)
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
    return this.call(method, `secrets/${encodeURIComponent(name)}`, secretMetadataAnswer, {
      query: { environment: at.environment },
      json: { value, ...(at.template ? { template: true } : {}), ...(at.plain ? { plain: true } : {}) },
      ifVersion: at.ifVersion,
    })
  }

  private async call<T>(
    method: HttpMethod,
    path: string,
    decoder: Decoder<T>,
    request: ApiRequest = {},
  ): Promise<T> {
    const { query = {}, json, ifVersion, maxBodyBytes } = request
    const headers = ifVersion === undefined ? undefined : { 'if-match': `"${ifVersion}"` }
    const searchParams = { ...query, project: this.session.settings.projectId }
    const response = await this.session.request<unknown>({
      method,
      path: `api/v1/${path}`,
      searchParams,
      json,
      headers,
      maxBodyBytes,
    })
    return decodeAnswer(`${method} /api/v1/${path.replace(/\/.*/, '/...')}`, response.body, decoder)
  }
}

/** The answer of a call whose body is not read (a DELETE). */
const ignored: Decoder<undefined> = () => undefined

/** What one call sends besides method and path: query parameters, a JSON body, the If-Match version. */
interface ApiRequest extends WriteOptions {
  query?: Record<string, string | undefined>
  json?: unknown
  /** The longest answer read (default 1 MiB, http.ts). */
  maxBodyBytes?: number
}

/**
 * The longest list answer read (every secret of an environment with its value, a secret's versions):
 * 64 MiB is thousands of times a real environment, and bounds what a hostile server costs.
 */
const maxListBytes = 64 * 1024 * 1024
