/**
 * CI identities by OIDC (issue 36, section 2), end to end: a real vault server over HTTP on SQLite and
 * PostgreSQL, a real issuer on loopback (test/helpers/oidc-issuer.ts), and the CLI (its commands in
 * process; the built CLI where DEBUG=* output or the child of vault run is what is tested). A CI job
 * exports and runs with VAULT_CLIENT_ID and its OIDC token, no client secret; every hostile token is
 * refused with a 401 naming the check it failed and nothing is issued; a token is single-use across
 * two server processes on one PostgreSQL; the issuer's keys are refetched once for a rotation and at
 * most once a minute for a flood of unknown kids; the OIDC tokens never show, not even with DEBUG=*.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hostAdmin } from '../../src/server/humans/actor.js'
import { createIdentityOp } from '../../src/server/operations/identities.js'
import type { OidcTrustInput } from '../../src/server/tokens/oidc-trust.js'
import Export from '../../src/commands/export.js'
import IdentityCreate from '../../src/commands/identity/create.js'
import IdentityUpdate from '../../src/commands/identity/update.js'
import Inject from '../../src/commands/inject.js'
import { runCli } from '../helpers/cli.js'
import { runCommand } from '../helpers/run-command.js'
import { createDatabase, postgresOrNull, queryDatabase, unavailableReason } from '../helpers/components.js'
import { startOidcIssuer, type TestIssuer } from '../helpers/oidc-issuer.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import {
  deploymentApi,
  spawnVaultProcess,
  startVaultServer,
  type TestVault,
} from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const jwtBearer = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const canary = 'OIDC-CANARY-prod-9f3c'

interface TokenAnswer {
  status: number
  body: { access_token?: string; error?: string; error_description?: string }
}

/** POSTs the JWT-bearer grant to `url`. */
async function exchange(url: string, clientId: string, assertion: string): Promise<TokenAnswer> {
  const response = await fetch(`${url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: jwtBearer, client_id: clientId, assertion }),
  })
  return { status: response.status, body: (await response.json()) as TokenAnswer['body'] }
}

const engines = [
  { name: 'SQLite', skip: false, dbUrl: async () => undefined },
  {
    name: 'PostgreSQL',
    skip: !postgres,
    dbUrl: async () => createDatabase(postgres!, 'vault_oidc'),
  },
]

describe.each(engines)('OIDC identities on $name', ({ name, skip, dbUrl }) => {
  if (skip) {
    it.skip(`needs PostgreSQL (${unavailableReason('postgres')})`, () => undefined)
    return
  }
  let vault: TestVault
  let issuer: TestIssuer
  let home: TempHome
  const work = mkdtempSync(join(tmpdir(), 'vault-oidc-'))

  /** Creates an identity reading prod that trusts `trust` (over the issuer's defaults); its client id. */
  async function trusting(identity: string, trust: OidcTrustInput = {}, at: TestIssuer = issuer) {
    const { driver, keyring } = vault.running.context
    const created = await createIdentityOp(
      { vault: { driver, keyring }, actor: hostAdmin },
      {
        project: vault.projectId,
        name: identity,
        permissions: 'prod=read',
        oidc: {
          issuer: at.url,
          audience: String(at.defaults.aud),
          subject: String(at.defaults.sub),
          ...trust,
        },
      },
    )
    return created.clientId
  }

  beforeAll(async () => {
    vault = await startVaultServer({ dbUrl: await dbUrl() })
    issuer = await startOidcIssuer()
    home = createTempHome()
    await deploymentApi(vault, join(work, 'seed')).putSecret('PROD_DB_PASSWORD', canary, 'prod')
  })
  afterAll(async () => {
    await vault?.stop()
    await issuer?.close()
    home?.cleanup()
    rmSync(work, { recursive: true, force: true })
  })

  it('vault identity create --oidc-* --json prints the client id, and vault export works with the OIDC token and no secret', async () => {
    const created = await runCommand(
      IdentityCreate,
      [
        'ci-export',
        '-p',
        vault.projectId,
        '--permissions',
        'prod=read',
        '--oidc-issuer',
        issuer.url,
        '--oidc-audience',
        'https://vault.test',
        '--oidc-subject',
        'repo:acme/stack:ref:refs/heads/*',
        '--oidc-claim',
        'repository=acme/stack',
        '--json',
      ],
      { env: { DB_URL: vault.dbUrl, ENCRYPTION_KEY: vault.encryptionKey } },
    )
    expect(created.exitCode, created.stderr).toBe(0)
    const { clientId } = JSON.parse(created.stdout) as { clientId: string }
    expect(clientId).toMatch(/^vc_/)
    const token = await issuer.sign()
    const exported = await runCli(['export', '--env=prod'], {
      env: {
        ...home.env,
        VAULT_DOMAIN: vault.url,
        VAULT_PROJECT_ID: vault.projectId,
        VAULT_CLIENT_ID: clientId,
        VAULT_OIDC_TOKEN: token,
        DEBUG: '*',
      },
    })
    expect(exported.exitCode, exported.stderr).toBe(0)
    expect(exported.stdout).toContain(`PROD_DB_PASSWORD='${canary}'`)
    expect(exported.stderr).toMatch(/auth\/token/) // DEBUG=* is on: the exchange itself is logged
    expect(exported.stderr).not.toContain(token)
    expect(exported.stderr).not.toContain(token.split('.')[2]!)
  })

  it('a second command of the same job uses the cached access token instead of replaying the OIDC token', async () => {
    const clientId = await trusting('ci-two-steps')
    const token = await issuer.sign()
    const job = {
      ...createTempHome().env,
      VAULT_DOMAIN: vault.url,
      VAULT_PROJECT_ID: vault.projectId,
      VAULT_CLIENT_ID: clientId,
      VAULT_OIDC_TOKEN: token,
    }
    for (const step of [1, 2]) {
      const exported = await runCommand(Export, ['--env=prod'], { env: job })
      expect(exported.exitCode, `step ${step}: ${exported.stderr}`).toBe(0)
      expect(exported.stdout).toContain(canary)
    }
    // the token is the CLI's credential: vault run's child and an inject template never see it
    const child = await runCli(
      [
        'run',
        '--env=prod',
        '--',
        process.execPath,
        '-e',
        'process.stdout.write(JSON.stringify(process.env))',
      ],
      {
        env: job,
      },
    )
    expect(child.exitCode, child.stderr).toBe(0)
    expect(child.stdout).not.toContain(token)
    expect(child.stdout).toContain('PROD_DB_PASSWORD')
    const dir = mkdtempSync(join(work, 'tpl-'))
    writeFileSync(join(dir, 'app.tpl'), 'token=${VAULT_OIDC_TOKEN:-none}\n')
    const rendered = await runCommand(Inject, ['--env', 'prod', '-i', 'app.tpl'], { env: job, cwd: dir })
    expect(rendered.exitCode, rendered.stderr).toBe(0)
    expect(rendered.stdout).toBe('token=none\n')
  })

  it('vault identity update replaces the trust, and --remove-oidc ends it; nothing else of the identity changes', async () => {
    const clientId = await trusting('ci-updated')
    const admin = { env: { DB_URL: vault.dbUrl, ENCRYPTION_KEY: vault.encryptionKey } }
    const updated = await runCommand(
      IdentityUpdate,
      [
        'ci-updated',
        '-p',
        vault.projectId,
        '--oidc-issuer',
        issuer.url,
        '--oidc-audience',
        'https://vault.test',
        '--oidc-subject',
        'repo:acme/stack:environment:prod',
        '--json',
      ],
      admin,
    )
    expect(updated.exitCode, updated.stderr).toBe(0)
    expect(JSON.parse(updated.stdout)).toMatchObject({
      clientId,
      oidc: { subject: 'repo:acme/stack:environment:prod' },
    })
    const old = await exchange(vault.url, clientId, await issuer.sign())
    expect(old.body.error_description).toContain('subject check')
    const fresh = await exchange(
      vault.url,
      clientId,
      await issuer.sign({ claims: { sub: 'repo:acme/stack:environment:prod' } }),
    )
    expect(fresh.status).toBe(200)
    const whoami = await fetch(`${vault.url}/api/v1/whoami`, {
      headers: { authorization: `Bearer ${fresh.body.access_token}` },
    })
    expect(await whoami.json()).toMatchObject({
      identity: { name: 'ci-updated' },
      permissions: { prod: ['read'] },
    })
    const removed = await runCommand(
      IdentityUpdate,
      [clientId, '-p', vault.projectId, '--remove-oidc', '--json'],
      admin,
    )
    expect(removed.exitCode, removed.stderr).toBe(0)
    const after = await exchange(
      vault.url,
      clientId,
      await issuer.sign({ claims: { sub: 'repo:acme/stack:environment:prod' } }),
    )
    expect(after.status).toBe(401)
    expect(after.body.error).toBe('invalid_client')
    const neither = await runCommand(IdentityUpdate, [clientId, '-p', vault.projectId], admin)
    expect(neither.exitCode).toBe(2)
    const http = await runCommand(
      IdentityUpdate,
      [
        clientId,
        '-p',
        vault.projectId,
        '--oidc-issuer',
        'http://issuer.example',
        '--oidc-audience',
        'a',
        '--oidc-subject',
        's:x',
      ],
      admin,
    )
    expect(http.exitCode).toBe(2)
    expect(http.stderr).toMatch(/https/)
  })

  it('vault run works in GitHub Actions (token requested for the vault domain), without the tokens in any output under DEBUG=*', async () => {
    const clientId = await trusting('ci-run', { audience: vault.url })
    const before = issuer.githubAudiences.length
    const ran = await runCli(
      [
        'run',
        '--env=prod',
        '--',
        process.execPath,
        '-e',
        'process.stdout.write(process.env.PROD_DB_PASSWORD.length + "")',
      ],
      {
        env: {
          ...createTempHome().env,
          VAULT_DOMAIN: vault.url,
          VAULT_PROJECT_ID: vault.projectId,
          VAULT_CLIENT_ID: clientId,
          ACTIONS_ID_TOKEN_REQUEST_URL: issuer.github.requestUrl,
          ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.github.requestToken,
          DEBUG: '*',
        },
      },
    )
    expect(ran.exitCode, ran.stderr).toBe(0)
    expect(ran.stdout).toBe(String(canary.length))
    expect(issuer.githubAudiences.slice(before)).toEqual([vault.url])
    const minted = issuer.githubTokens.slice(before)
    expect(minted).toHaveLength(1)
    for (const text of [ran.stdout, ran.stderr]) {
      expect(text).not.toContain(issuer.github.requestToken)
      expect(text).not.toContain(minted[0]!.split('.')[2]!)
    }
  })

  it('a refused token ends the CLI with exit 4 and the server reason, without the token', async () => {
    const clientId = await trusting('ci-refused')
    const token = await issuer.sign({ claims: { sub: 'repo:mallory/stack:ref:refs/heads/main' } })
    const refused = await runCli(['export', '--env=prod'], {
      env: {
        ...createTempHome().env,
        VAULT_DOMAIN: vault.url,
        VAULT_PROJECT_ID: vault.projectId,
        VAULT_CLIENT_ID: clientId,
        VAULT_OIDC_TOKEN: token,
        DEBUG: '*',
      },
    })
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toMatch(/subject check/)
    expect(refused.stdout).not.toContain(canary)
    expect(refused.stderr).not.toContain(token)
  })

  const now = () => Math.floor(Date.now() / 1000)
  const refusals: [string, string, (at: TestIssuer) => Promise<string>, OidcTrustInput?][] = [
    [
      'a wrong subject',
      'subject',
      (at) => at.sign({ claims: { sub: 'repo:acme/other:ref:refs/heads/main' } }),
    ],
    ['a wrong audience', 'audience', (at) => at.sign({ claims: { aud: 'https://elsewhere.test' } })],
    [
      'a wrong issuer',
      'issuer',
      (at) => at.sign({ claims: { iss: 'https://token.actions.githubusercontent.com' } }),
    ],
    [
      'a key the issuer never published (same kid)',
      'signature',
      async (at) => at.sign({ key: await at.strangerKey(at.key.kid) }),
    ],
    ['alg none', 'signature', async (at) => at.unsigned()],
    ['HS256 with the public key as HMAC secret', 'signature', (at) => at.hmacWithPublicKey()],
    [
      'an expired token',
      'expiry',
      (at) => at.sign({ claims: { iat: now() - 900, nbf: now() - 900, exp: now() - 120 } }),
    ],
    ['a token not yet valid', 'expiry', (at) => at.sign({ claims: { nbf: now() + 600, exp: now() + 900 } })],
    [
      'a token issued in the future',
      'expiry',
      (at) => at.sign({ claims: { iat: now() + 600, nbf: undefined, exp: now() + 900 } }),
    ],
    ['a token without jti', 'replay', (at) => at.sign({ claims: { jti: undefined } })],
    ['a jti of 300 characters', 'replay', (at) => at.sign({ claims: { jti: 'j'.repeat(300) } })],
    ['a token that is no JWT', 'signature', async () => 'not.a.jwt'],
    ['a token over 16 KiB', 'signature', (at) => at.sign({ claims: { padding: 'x'.repeat(17_000) } })],
    ['a kid named __proto__', 'signature', async (at) => at.sign({ key: await at.strangerKey('__proto__') })],
    [
      'a * that tries to cross a : segment',
      'subject',
      (at) => at.sign({ claims: { sub: 'repo:acme/x:ref:refs/heads/main:ref:refs/heads/main' } }),
      { subject: 'repo:acme/*:ref:refs/heads/main' },
    ],
    [
      'a * whose match would need a : (owner:repo)',
      'subject',
      (at) => at.sign({ claims: { sub: 'repo:acme:evil/stack:ref:refs/heads/main' } }),
      { subject: 'repo:acme*/stack:ref:refs/heads/main' },
    ],
    [
      'a required claim offered only through __proto__',
      'claim',
      (at) =>
        at.sign({
          claims: {
            repository: undefined,
            ...(JSON.parse('{"__proto__": {"repository": "acme/stack"}}') as object),
          },
        }),
      { claims: ['repository=acme/stack'] },
    ],
    [
      'a required claim named constructor that the token lacks',
      'claim',
      (at) => at.sign(),
      { claims: ['constructor=function Object() { [native code] }'] },
    ],
    [
      'a required claim named toString that the token lacks',
      'claim',
      (at) => at.sign(),
      { claims: ['toString=[object Object]'] },
    ],
  ]

  it.each(refusals)(
    'refuses %s with a 401 naming the %s check, and issues nothing',
    async (label, check, make, trust) => {
      const clientId = await trusting(`ci-${label.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`, trust)
      const token = await make(issuer)
      const answer = await exchange(vault.url, clientId, token)
      expect(answer.status).toBe(401)
      expect(answer.body.error).toBe('invalid_grant')
      expect(answer.body.error_description).toContain(`${check} check`)
      expect(answer.body.access_token).toBeUndefined()
      expect(JSON.stringify(answer.body)).not.toContain(token.split('.')[2] || token)
    },
  )

  it('answers 503 (exit 7 in the CLI) when the issuer cannot be reached, and issues nothing', async () => {
    const gone = await startOidcIssuer()
    await gone.close()
    const clientId = await trusting('ci-issuer-gone', {}, gone)
    const answer = await exchange(vault.url, clientId, await issuer.sign({ claims: { iss: gone.url } }))
    expect(answer.status).toBe(503)
    expect(answer.body.error).toBe('temporarily_unavailable')
    expect(answer.body.access_token).toBeUndefined()
  })

  it('accepts the same claims as own properties, and a glob within its segment', async () => {
    const clientId = await trusting('ci-glob', {
      subject: 'repo:acme/*:ref:refs/heads/release-*',
      claims: ['repository=acme/stack', 'run_attempt=1'],
    })
    const token = await issuer.sign({
      claims: { sub: 'repo:acme/stack:ref:refs/heads/release-2.1', run_attempt: 1 },
    })
    const answer = await exchange(vault.url, clientId, token)
    expect(answer.status, answer.body.error_description).toBe(200)
    expect(answer.body.access_token).toBeTruthy()
  })

  it('refuses a replayed token with the replay check, and audits iss, sub and jti but never the token', async () => {
    const clientId = await trusting('ci-replay')
    const jti = `jti-${name}-replay`
    const token = await issuer.sign({ claims: { jti } })
    expect((await exchange(vault.url, clientId, token)).status).toBe(200)
    const again = await exchange(vault.url, clientId, token)
    expect(again.status).toBe(401)
    expect(again.body.error_description).toContain('replay check')
    const { driver } = vault.running.context
    const events = await driver.transaction((tx) =>
      tx.all<{ detail: string | null; result: string }>(
        `SELECT detail, result FROM audit_events WHERE action = ?`,
        ['auth.login'],
      ),
    )
    const ok = events.filter((event) => event.result === 'ok' && event.detail?.includes(jti))
    expect(ok).toHaveLength(1)
    expect(JSON.parse(ok[0]!.detail!.replace(/^oidc /, ''))).toEqual({
      iss: issuer.url,
      sub: issuer.defaults.sub,
      jti,
    })
    for (const event of events) expect(event.detail ?? '').not.toContain(token.split('.')[2]!)
  })

  it('refuses a trust widened by a database edit (the row MAC covers it)', async () => {
    const clientId = await trusting('ci-tampered')
    const { driver } = vault.running.context
    const [row] = await driver.transaction((tx) =>
      tx.all<{ oidc_trust: string }>(`SELECT oidc_trust FROM identities WHERE client_id = ?`, [clientId]),
    )
    const widened = row!.oidc_trust.replace(
      'repo:acme/stack:ref:refs/heads/main',
      'repo:*:ref:refs/heads/main',
    )
    await driver.transaction((tx) =>
      tx.run(`UPDATE identities SET oidc_trust = ? WHERE client_id = ?`, [widened, clientId]),
    )
    const answer = await exchange(
      vault.url,
      clientId,
      await issuer.sign({ claims: { sub: 'repo:mallory/x:ref:refs/heads/main' } }),
    )
    expect(answer.status).toBe(401)
    expect(answer.body.error_description).toMatch(/integrity/)
    await driver.transaction((tx) =>
      tx.run(`UPDATE identities SET revoked_at = ? WHERE client_id = ?`, [
        '2026-01-01T00:00:00.000Z',
        clientId,
      ]),
    )
  })

  it('picks up a key rotation at the issuer with one refetch', async () => {
    const rotating = await startOidcIssuer({ alg: 'ES256' })
    try {
      const clientId = await trusting('ci-rotation', {}, rotating)
      expect((await exchange(vault.url, clientId, await rotating.sign())).status).toBe(200)
      expect(rotating.requests.get('/jwks')).toBe(1)
      await rotating.rotate({ dropOld: true })
      const answer = await exchange(vault.url, clientId, await rotating.sign())
      expect(answer.status, answer.body.error_description).toBe(200)
      expect(rotating.requests.get('/jwks')).toBe(2)
    } finally {
      await rotating.close()
    }
  })

  it('refetches the keys at most once a minute for a flood of unknown kids', async () => {
    const flooded = await startOidcIssuer({ alg: 'EdDSA' })
    try {
      // five identities, four forgeries each: under the per-(client id, source) throttle of five
      const clientIds = await Promise.all([0, 1, 2, 3, 4].map((i) => trusting(`ci-flood-${i}`, {}, flooded)))
      expect((await exchange(vault.url, clientIds[0]!, await flooded.sign())).status).toBe(200)
      const forged = await Promise.all(
        Array.from({ length: 20 }, async (_, i) =>
          flooded.sign({ key: await flooded.strangerKey(`made-up-${i}`) }),
        ),
      )
      const answers = await Promise.all(
        forged.map((token, i) => exchange(vault.url, clientIds[i % 5]!, token)),
      )
      for (const answer of answers) {
        expect(answer.status).toBe(401)
        expect(answer.body.error_description).toContain('signature check')
      }
      expect(flooded.requests.get('/jwks')).toBe(2)
      expect(flooded.requests.get('/.well-known/openid-configuration')).toBe(1)
    } finally {
      await flooded.close()
    }
  })

  it('counts OIDC failures in the per-source login throttle', async () => {
    const limited = await startVaultServer({ dbUrl: await dbUrl(), limits: { lockoutThreshold: 2 } })
    try {
      const { driver, keyring } = limited.running.context
      const created = await createIdentityOp(
        { vault: { driver, keyring }, actor: hostAdmin },
        {
          project: limited.projectId,
          name: 'ci-throttle',
          permissions: 'prod=read',
          oidc: {
            issuer: issuer.url,
            audience: 'https://vault.test',
            subject: 'repo:acme/stack:ref:refs/heads/main',
          },
        },
      )
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) {
        const bad = await issuer.sign({ claims: { aud: 'https://elsewhere.test' } })
        statuses.push((await exchange(limited.url, created.clientId, bad)).status)
      }
      expect(statuses.slice(0, 2)).toEqual([401, 401])
      expect(statuses.slice(2)).toContain(429)
    } finally {
      await limited.stop()
    }
  })
})

describe.skipIf(!postgres)(
  `OIDC replay across two server processes on one PostgreSQL (${unavailableReason('postgres')})`,
  () => {
    it('exchanges a token once, whichever replica sees it', async () => {
      const issuer = await startOidcIssuer()
      const vault = await startVaultServer({ dbUrl: await createDatabase(postgres!, 'vault_oidc_replay') })
      const replicas = await Promise.all([0, 1].map(() => spawnVaultProcess(vault)))
      try {
        const { driver, keyring } = vault.running.context
        const created = await createIdentityOp(
          { vault: { driver, keyring }, actor: hostAdmin },
          {
            project: vault.projectId,
            name: 'ci-replicas',
            permissions: 'prod=read',
            oidc: {
              issuer: issuer.url,
              audience: 'https://vault.test',
              subject: 'repo:acme/stack:ref:refs/heads/main',
            },
          },
        )
        for (let round = 0; round < 5; round++) {
          const token = await issuer.sign()
          const answers = await Promise.all(
            replicas.map((replica) => exchange(replica.url, created.clientId, token)),
          )
          expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401])
          expect(answers.find((answer) => answer.status === 401)!.body.error_description).toContain(
            'replay check',
          )
        }
        const used = await queryDatabase(vault.dbUrl, `SELECT COUNT(*)::int AS count FROM oidc_used_tokens`)
        expect(used[0]!.count).toBe(5)
      } finally {
        await Promise.all(replicas.map((replica) => replica.stop()))
        await vault.stop()
        await issuer.close()
      }
    })
  },
)
