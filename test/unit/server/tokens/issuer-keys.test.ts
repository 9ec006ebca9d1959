import { exportJWK, generateKeyPair, SignJWT, jwtVerify } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  fetchIssuerJson,
  IssuerUnavailableError,
  maxAge,
} from '../../../../src/server/tokens/issuer-fetch.js'
import { discoveryUrl, IssuerKeys } from '../../../../src/server/tokens/issuer-keys.js'

const issuer = 'https://issuer.test/ci'

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>
let keyA: KeyPair
let keyB: KeyPair

beforeAll(async () => {
  keyA = await generateKeyPair('ES256', { extractable: true })
  keyB = await generateKeyPair('ES256', { extractable: true })
})

/** A fake issuer behind an injected fetch: counts requests per path, serves the keys it is given. */
function fakeIssuer(options: { jwksCacheControl?: string; discovery?: Record<string, unknown> } = {}) {
  const state = {
    keys: [] as Record<string, unknown>[],
    requests: new Map<string, number>(),
    fetch: (async (input: URL | string | Request) => {
      const url = new URL(String(input))
      state.requests.set(url.pathname, (state.requests.get(url.pathname) ?? 0) + 1)
      if (url.pathname === '/ci/.well-known/openid-configuration') {
        return Response.json(options.discovery ?? { issuer, jwks_uri: 'https://issuer.test/ci/jwks' })
      }
      const headers = options.jwksCacheControl ? { 'cache-control': options.jwksCacheControl } : undefined
      return Response.json({ keys: state.keys }, { headers })
    }) as typeof fetch,
  }
  return state
}

async function publish(pair: KeyPair, kid: string) {
  return { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256' }
}

async function token(pair: KeyPair, kid: string) {
  return new SignJWT({ sub: 's' })
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuer(issuer)
    .sign(pair.privateKey)
}

describe('the issuer key cache', () => {
  it('finds the JWKS through the discovery document and caches both for max-age', async () => {
    const fake = fakeIssuer({ jwksCacheControl: 'public, max-age=120' })
    fake.keys = [await publish(keyA, 'a')]
    let now = 1_000_000
    const keys = new IssuerKeys({ fetch: fake.fetch, now: () => now })
    await jwtVerify(await token(keyA, 'a'), keys.resolver(issuer))
    now += 119_000
    await jwtVerify(await token(keyA, 'a'), keys.resolver(issuer))
    expect(fake.requests.get('/ci/jwks')).toBe(1)
    now += 2_000
    await jwtVerify(await token(keyA, 'a'), keys.resolver(issuer))
    expect(fake.requests.get('/ci/jwks')).toBe(2)
    expect(fake.requests.get('/ci/.well-known/openid-configuration')).toBe(1)
  })

  it('caches five minutes when the answer names no max-age, and not at all for no-store', async () => {
    for (const [cacheControl, fetchesAfterOneMinute] of [
      [undefined, 1],
      ['no-store', 2],
    ] as const) {
      const fake = fakeIssuer({ jwksCacheControl: cacheControl })
      fake.keys = [await publish(keyA, 'a')]
      let now = 0
      const keys = new IssuerKeys({ fetch: fake.fetch, now: () => now })
      await jwtVerify(await token(keyA, 'a'), keys.resolver(issuer))
      now += 60_000
      await jwtVerify(await token(keyA, 'a'), keys.resolver(issuer))
      expect(fake.requests.get('/ci/jwks')).toBe(fetchesAfterOneMinute)
    }
  })

  it('refetches at once for a new kid (rotation), then at most once a minute for unknown kids', async () => {
    const fake = fakeIssuer({ jwksCacheControl: 'max-age=3600' })
    fake.keys = [await publish(keyA, 'a')]
    let now = 0
    const keys = new IssuerKeys({ fetch: fake.fetch, now: () => now })
    await jwtVerify(await token(keyA, 'a'), keys.resolver(issuer))
    now += 1_000
    fake.keys = [await publish(keyB, 'b')]
    await jwtVerify(await token(keyB, 'b'), keys.resolver(issuer))
    expect(fake.requests.get('/ci/jwks')).toBe(2)
    const flood = await Promise.allSettled(
      Array.from({ length: 30 }, async (_, i) =>
        jwtVerify(await token(keyA, `made-up-${i}`), keys.resolver(issuer)),
      ),
    )
    expect(flood.every((result) => result.status === 'rejected')).toBe(true)
    // the rotation's refetch was the one of this minute
    expect(fake.requests.get('/ci/jwks')).toBe(2)
    now += 58_000
    await expect(jwtVerify(await token(keyA, 'x'), keys.resolver(issuer))).rejects.toThrow(
      /no applicable key/i,
    )
    expect(fake.requests.get('/ci/jwks')).toBe(2)
    now += 2_000
    const flood2 = await Promise.allSettled(
      Array.from({ length: 30 }, async (_, i) =>
        jwtVerify(await token(keyA, `again-${i}`), keys.resolver(issuer)),
      ),
    )
    expect(flood2.every((result) => result.status === 'rejected')).toBe(true)
    expect(fake.requests.get('/ci/jwks')).toBe(3)
  })

  it('shares one fetch among concurrent first requests', async () => {
    const fake = fakeIssuer()
    fake.keys = [await publish(keyA, 'a')]
    const keys = new IssuerKeys({ fetch: fake.fetch })
    const signed = await token(keyA, 'a')
    await Promise.all(Array.from({ length: 10 }, () => jwtVerify(signed, keys.resolver(issuer))))
    expect(fake.requests.get('/ci/jwks')).toBe(1)
  })

  it.each([
    [
      'another issuer',
      { issuer: 'https://evil.test', jwks_uri: 'https://issuer.test/ci/jwks' },
      /another issuer/,
    ],
    ['a jwks_uri on another origin', { issuer, jwks_uri: 'https://evil.test/jwks' }, /another origin/],
    ['no jwks_uri', { issuer }, /jwks_uri/],
  ])('refuses a discovery document naming %s', async (_label, discovery, problem) => {
    const fake = fakeIssuer({ discovery })
    const keys = new IssuerKeys({ fetch: fake.fetch })
    await expect(jwtVerify(await token(keyA, 'a'), keys.resolver(issuer))).rejects.toThrow(problem)
  })

  it('ignores secret (oct) and private members of a JWKS', async () => {
    const fake = fakeIssuer()
    const { d: _d, ...publicPart } = { d: 'x', ...(await publish(keyA, 'a')) }
    fake.keys = [
      { kty: 'oct', k: 'c2VjcmV0', kid: 'a', alg: 'HS256' },
      { ...(await exportJWK(keyB.privateKey)), kid: 'a', alg: 'ES256' },
      publicPart,
    ]
    const keys = new IssuerKeys({ fetch: fake.fetch })
    await expect(jwtVerify(await token(keyA, 'a'), keys.resolver(issuer))).resolves.toBeTruthy()
  })

  it('names the discovery URL of an issuer with and without a path', () => {
    expect(discoveryUrl('https://gitlab.com').href).toBe(
      'https://gitlab.com/.well-known/openid-configuration',
    )
    expect(discoveryUrl('https://git.example/api/actions').href).toBe(
      'https://git.example/api/actions/.well-known/openid-configuration',
    )
  })
})

describe('fetching an issuer document', () => {
  const origin = 'https://issuer.test'
  const answer = (response: Response) => (async () => response) as unknown as typeof fetch

  it.each([
    [
      'a redirect to another host',
      new Response(null, { status: 302, headers: { location: 'https://evil.test/x' } }),
      /another origin/,
    ],
    ['an error status', new Response('{}', { status: 500 }), /HTTP 500/],
    ['a body that is not JSON', new Response('<html>', { status: 200 }), /JSON/],
    ['a body over the cap', new Response('x'.repeat(2000), { status: 200 }), /more than 1000 bytes/],
  ])('refuses %s', async (_label, response, problem) => {
    await expect(
      fetchIssuerJson(new URL('https://issuer.test/doc'), origin, {
        fetch: answer(response),
        maxBytes: 1000,
      }),
    ).rejects.toThrow(problem)
  })

  it('follows a redirect within the origin', async () => {
    const seen: string[] = []
    const fake = (async (input: URL | string | Request) => {
      seen.push(String(input))
      return seen.length === 1
        ? new Response(null, { status: 301, headers: { location: '/moved' } })
        : Response.json({ ok: true })
    }) as typeof fetch
    const document = await fetchIssuerJson(new URL('https://issuer.test/doc'), origin, { fetch: fake })
    expect(document.body).toEqual({ ok: true })
    expect(seen).toEqual(['https://issuer.test/doc', 'https://issuer.test/moved'])
  })

  it('gives up on an issuer that does not answer in time', async () => {
    const hanging = ((_input: unknown, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason))
      })) as typeof fetch
    await expect(
      fetchIssuerJson(new URL('https://issuer.test/doc'), origin, { fetch: hanging, timeoutMs: 20 }),
    ).rejects.toThrow(IssuerUnavailableError)
  })

  it.each([
    [null, undefined],
    ['public', undefined],
    ['max-age=600', 600],
    ['public, max-age=60, must-revalidate', 60],
    ['no-store', 0],
    ['no-cache, max-age=600', 0],
    ['max-age=abc', undefined],
  ])('reads Cache-Control %j as max-age %j', (header, expected) => {
    expect(maxAge(header)).toBe(expected)
  })
})
