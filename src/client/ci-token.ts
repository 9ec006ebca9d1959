/**
 * The OIDC token of a CI job, for the JWT-bearer login (session.ts): VAULT_OIDC_TOKEN as given (GitLab's
 * `id_tokens`, Forgejo, any CI), else one requested from GitHub Actions' token endpoint
 * (ACTIONS_ID_TOKEN_REQUEST_URL with `&audience=`, bearer ACTIONS_ID_TOKEN_REQUEST_TOKEN). Both tokens
 * are secrets: no error or debug line here ever holds them, nor the request URL's query.
 */
import { AuthError, UnreachableError } from '../errors.js'
import { sendOnce } from './http-send.js'

/** Where a CI job's OIDC token comes from (settings.ts reads it from the environment only). */
export interface CiTokenSource {
  /** VAULT_OIDC_TOKEN: a raw JWT. */
  token?: string
  /** GitHub Actions: ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN. */
  request?: { url: string; bearer: string }
  /** VAULT_OIDC_AUDIENCE (default: the vault's domain). */
  audience?: string
}

/** Whether the source can give a token. */
export function hasCiToken(source: CiTokenSource | undefined): source is CiTokenSource {
  return Boolean(source?.token || source?.request)
}

const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/** The job's OIDC token for `defaultAudience` (the vault's domain) unless the source names another. */
export async function ciIdentityToken(
  source: CiTokenSource,
  defaultAudience: string,
  options: { timeoutMs?: number } = {},
): Promise<string> {
  if (source.token) {
    if (!jwtShape.test(source.token)) throw new AuthError('VAULT_OIDC_TOKEN is not a JWT')
    return source.token
  }
  const { url: requestUrl, bearer } = source.request!
  let url: URL
  try {
    url = new URL(`${requestUrl}&audience=${encodeURIComponent(source.audience ?? defaultAudience)}`)
  } catch {
    throw new AuthError('ACTIONS_ID_TOKEN_REQUEST_URL is not a URL')
  }
  const where = `${url.origin}${url.pathname}`
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AuthError(`ACTIONS_ID_TOKEN_REQUEST_URL must be http(s), not ${url.protocol}`)
  }
  const answer = await sendOnce(url, {
    method: 'GET',
    headers: { authorization: `bearer ${bearer}`, accept: 'application/json', 'user-agent': 'vault-cli' },
    timeoutMs: options.timeoutMs ?? 15_000,
  }).catch((error: unknown) => {
    throw new UnreachableError(`the CI's OIDC token endpoint (${where}) could not be reached`, {
      cause: error,
    })
  })
  if (answer.status !== 200) {
    throw new AuthError(`the CI's OIDC token endpoint (${where}) answered HTTP ${answer.status}`, {
      hint: 'give the job the id-token: write permission',
    })
  }
  let value: unknown
  try {
    value = (JSON.parse(answer.text) as { value?: unknown } | null)?.value
  } catch {
    value = undefined
  }
  if (typeof value !== 'string' || !jwtShape.test(value)) {
    throw new AuthError(`the CI's OIDC token endpoint (${where}) answered no token`)
  }
  return value
}
