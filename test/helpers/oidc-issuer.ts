/**
 * A real OIDC issuer for tests, on 127.0.0.1:0 over node:http: keys made here (jose generateKeyPair),
 * its discovery document and JWKS (with a Cache-Control the test chooses, each request counted), and
 * GitHub Actions' token request endpoint (`GET /github-token?...&audience=AUD` with `Authorization:
 * bearer REQUEST_TOKEN`, answering `{"value": JWT}`). Tokens it signs carry the usual CI claims; a test
 * can forge the hostile ones (`none`, HS256 with the public key as secret, a stranger's key).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { randomBytes, randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose'

type Algorithm = 'RS256' | 'ES256' | 'EdDSA'

interface SigningKey {
  kid: string
  alg: Algorithm
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']
  publicJwk: JWK
}

export interface SignOptions {
  /** Claims merged over the defaults (iss, aud, sub, iat, nbf, exp, jti); `undefined` drops one. */
  claims?: Record<string, unknown>
  /** Sign with this key (default the current one); `stranger` for a key the issuer never published. */
  key?: SigningKey
  /** Header kid (default the key's). */
  kid?: string
}

export interface TestIssuer {
  /** The issuer URL (`http://127.0.0.1:PORT`). */
  url: string
  /** The GitHub Actions request URL (ACTIONS_ID_TOKEN_REQUEST_URL) and its bearer. */
  github: { requestUrl: string; requestToken: string }
  /** Requests seen, by path (`/.well-known/openid-configuration`, `/jwks`, `/github-token`). */
  requests: Map<string, number>
  /** The audiences GitHub's endpoint was asked for. */
  githubAudiences: string[]
  /** The tokens GitHub's endpoint handed out (canaries for leak checks). */
  githubTokens: string[]
  /** Cache-Control of the JWKS answers (default none). */
  jwksCacheControl?: string
  /** The current signing key. */
  key: SigningKey
  /** Default claims of signed tokens (aud, sub, and more). */
  defaults: Record<string, unknown>
  sign(options?: SignOptions): Promise<string>
  /** A token with `alg: none` and no signature. */
  unsigned(claims?: Record<string, unknown>): string
  /** HS256 signed with the current public key's JWK text as HMAC secret (algorithm confusion). */
  hmacWithPublicKey(claims?: Record<string, unknown>): Promise<string>
  /** A key of the same kind the issuer never published. */
  strangerKey(kid?: string): Promise<SigningKey>
  /** Makes a new key the current one; the JWKS then lists the new key (and the old, unless `dropOld`). */
  rotate(options?: { dropOld?: boolean }): Promise<SigningKey>
  close(): Promise<void>
}

/** A new key pair of `alg` with `kid`. */
export async function makeKey(alg: Algorithm, kid: string = randomUUID()): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers })
  response.end(JSON.stringify(body))
}

/** Starts an issuer on 127.0.0.1:0 signing with `alg` (default RS256). */
export async function startOidcIssuer(options: { alg?: Algorithm } = {}): Promise<TestIssuer> {
  const alg = options.alg ?? 'RS256'
  const published: SigningKey[] = [await makeKey(alg)]
  const requestToken = randomBytes(16).toString('hex')
  // eslint-disable-next-line prefer-const -- the server's handler reads it once it is assigned below
  let issuer: TestIssuer
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', issuer.url)
    issuer.requests.set(url.pathname, (issuer.requests.get(url.pathname) ?? 0) + 1)
    if (url.pathname === '/.well-known/openid-configuration') {
      send(response, 200, {
        issuer: issuer.url,
        jwks_uri: `${issuer.url}/jwks`,
        id_token_signing_alg_values_supported: [alg],
      })
    } else if (url.pathname === '/jwks') {
      const cache: Record<string, string> = issuer.jwksCacheControl
        ? { 'cache-control': issuer.jwksCacheControl }
        : {}
      send(response, 200, { keys: published.map((key) => key.publicJwk) }, cache)
    } else if (url.pathname === '/github-token') {
      if (request.headers.authorization !== `bearer ${requestToken}`)
        return send(response, 401, { message: 'no' })
      const audience = url.searchParams.get('audience') ?? ''
      issuer.githubAudiences.push(audience)
      void issuer.sign({ claims: { aud: audience } }).then((value) => {
        issuer.githubTokens.push(value)
        send(response, 200, { count: 1, value })
      })
    } else {
      send(response, 404, {})
    }
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const defaultClaims = (): Record<string, unknown> => {
    const now = Math.floor(Date.now() / 1000)
    return { iss: url, iat: now, nbf: now, exp: now + 300, jti: randomUUID(), ...issuer.defaults }
  }
  issuer = {
    url,
    github: { requestUrl: `${url}/github-token?api-version=2.0`, requestToken },
    requests: new Map(),
    githubAudiences: [],
    githubTokens: [],
    key: published[0]!,
    defaults: {
      aud: 'https://vault.test',
      sub: 'repo:acme/stack:ref:refs/heads/main',
      repository: 'acme/stack',
    },
    async sign(signOptions = {}) {
      const key = signOptions.key ?? issuer.key
      const claims = Object.fromEntries(
        Object.entries({ ...defaultClaims(), ...signOptions.claims }).filter(
          ([, value]) => value !== undefined,
        ),
      )
      return new SignJWT(claims as JWTPayload)
        .setProtectedHeader({ alg: key.alg, kid: signOptions.kid ?? key.kid, typ: 'JWT' })
        .sign(key.privateKey)
    },
    unsigned(claims = {}) {
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
      return `${part({ alg: 'none', typ: 'JWT' })}.${part({ ...defaultClaims(), ...claims })}.`
    },
    async hmacWithPublicKey(claims = {}) {
      const secret = new TextEncoder().encode(JSON.stringify(issuer.key.publicJwk))
      return new SignJWT({ ...defaultClaims(), ...claims } as JWTPayload)
        .setProtectedHeader({ alg: 'HS256', kid: issuer.key.kid, typ: 'JWT' })
        .sign(secret)
    },
    strangerKey: (kid) => makeKey(alg, kid),
    async rotate(rotateOptions = {}) {
      const next = await makeKey(alg)
      if (rotateOptions.dropOld) published.length = 0
      published.push(next)
      issuer.key = next
      return next
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
  return issuer
}
