import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isLoopbackHost, resolveSettings, vaultBaseUrl } from '../../../src/client/settings.js'
import { ExitCode } from '../../../src/errors.js'

let stack: string
beforeEach(() => {
  stack = mkdtempSync(join(tmpdir(), 'vault-stack-'))
})
afterEach(() => rmSync(stack, { recursive: true, force: true }))

/** Writes the stack's credentials file (.vault/credentials). */
function writeEnv(text: string, mode = 0o600) {
  mkdirSync(join(stack, '.vault'), { recursive: true, mode: 0o700 })
  writeFileSync(join(stack, '.vault', 'credentials'), text)
  chmodSync(join(stack, '.vault', 'credentials'), mode)
}

describe('resolveSettings', () => {
  it('reads the four VAULT_ variables from the stack credentials file', async () => {
    writeEnv(
      'VAULT_DOMAIN=https://vault.example/\nVAULT_PROJECT_ID=p1\nVAULT_CLIENT_ID=c1\nVAULT_CLIENT_SECRET="s 1"\n',
    )
    const { settings, warnings } = await resolveSettings({ 'stack-dir': stack }, {})
    expect(settings).toMatchObject({
      domain: 'https://vault.example',
      projectId: 'p1',
      clientId: 'c1',
      clientSecret: 's 1',
    })
    expect(warnings).toEqual([])
  })

  it('lets flags beat the environment and the environment beat the credentials file', async () => {
    writeEnv('VAULT_DOMAIN=https://file\nVAULT_CLIENT_ID=file\nVAULT_PROJECT_ID=file\n')
    const { settings } = await resolveSettings(
      { 'stack-dir': stack, project: 'flag' },
      { VAULT_DOMAIN: 'https://env', VAULT_CLIENT_ID: 'env' },
    )
    expect(settings).toMatchObject({ domain: 'https://env', clientId: 'env', projectId: 'flag' })
  })

  it.each([
    ['.vault/credentials', () => writeEnv('VAULT_DOMAIN=https://attacker.example\n')],
    ['.env', () => writeFileSync(join(stack, '.env'), 'VAULT_DOMAIN=https://attacker.example\n')],
  ])(
    "refuses a secret from the environment with a domain from the stack's %s (exit 2)",
    async (_file, plant) => {
      plant()
      const hostEnv = { VAULT_CLIENT_ID: 'c1', VAULT_CLIENT_SECRET: 'operator-secret' }
      const refused = await resolveSettings({ 'stack-dir': stack }, hostEnv).catch((error: unknown) => error)
      expect(refused).toMatchObject({ exitCode: ExitCode.usage })
      expect(String(refused)).toMatch(/refusing to send the secret/)
      expect(String(refused)).not.toContain('operator-secret')
      // the operator's own domain, from the environment or a flag, is used as before
      for (const [flags, env] of [
        [{}, { ...hostEnv, VAULT_DOMAIN: 'https://vault.example' }],
        [{ domain: 'https://vault.example' }, hostEnv],
      ] as const) {
        const { settings } = await resolveSettings({ 'stack-dir': stack, ...flags }, env)
        expect(settings).toMatchObject({ domain: 'https://vault.example', clientSecret: 'operator-secret' })
      }
    },
  )

  it.each([
    ['VAULT_OIDC_TOKEN', { VAULT_OIDC_TOKEN: 'eyJ.canary-oidc.sig' }],
    [
      'GitHub Actions',
      { ACTIONS_ID_TOKEN_REQUEST_URL: 'https://gh.test/t?x=1', ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'canary-gh' },
    ],
  ])(
    "refuses a CI job's OIDC token (%s) with a domain from the stack's files, which could then receive it",
    async (_source, ciEnv) => {
      writeEnv('VAULT_DOMAIN=https://attacker.example\n')
      const refused = await resolveSettings(
        { 'stack-dir': stack },
        { VAULT_CLIENT_ID: 'c1', ...ciEnv },
      ).catch((error: unknown) => error)
      expect(refused).toMatchObject({ exitCode: ExitCode.usage })
      expect(String(refused)).toMatch(/OIDC token .* refusing to send the secret/)
      expect(String(refused)).not.toMatch(/canary/)
      const { settings } = await resolveSettings(
        { 'stack-dir': stack },
        { VAULT_CLIENT_ID: 'c1', VAULT_DOMAIN: 'https://vault.example', ...ciEnv },
      )
      expect(settings.ciToken).toBeDefined()
    },
  )

  it("reads the CI job's OIDC token from the environment only, never from the stack's files", async () => {
    writeEnv('VAULT_DOMAIN=https://vault.example\nVAULT_OIDC_TOKEN=a.b.c\n')
    writeFileSync(
      join(stack, '.env'),
      'ACTIONS_ID_TOKEN_REQUEST_URL=https://x\nACTIONS_ID_TOKEN_REQUEST_TOKEN=y\n',
    )
    expect((await resolveSettings({ 'stack-dir': stack }, {})).settings.ciToken).toBeUndefined()
    const { settings } = await resolveSettings(
      { 'stack-dir': stack },
      {
        VAULT_DOMAIN: 'https://vault.example',
        VAULT_OIDC_TOKEN: 'a.b.c',
        VAULT_OIDC_AUDIENCE: 'aud',
        ACTIONS_ID_TOKEN_REQUEST_URL: 'https://x',
      },
    )
    expect(settings.ciToken).toEqual({ token: 'a.b.c', request: undefined, audience: 'aud' })
  })

  it("keeps a domain and a secret that both come from the stack's files", async () => {
    writeEnv('VAULT_DOMAIN=https://vault.example\n')
    writeFileSync(join(stack, '.env'), 'VAULT_CLIENT_SECRET=file-secret\n')
    const { settings } = await resolveSettings({ 'stack-dir': stack }, {})
    expect(settings).toMatchObject({ domain: 'https://vault.example', clientSecret: 'file-secret' })
  })

  it('warns when the credentials file is readable by group or others', async () => {
    writeEnv('VAULT_CLIENT_SECRET=x\n', 0o644)
    const { warnings } = await resolveSettings({ 'stack-dir': stack }, {})
    expect(warnings.join('\n')).toMatch(/readable by group or others \(mode 644\)/)
  })

  it('suggests a chmod that, pasted into a shell, changes the file and runs nothing a directory name holds', async () => {
    const hostile = join(stack, "x;touch pwned;'$(touch pwned2)'")
    mkdirSync(join(hostile, '.vault'), { recursive: true, mode: 0o700 })
    writeFileSync(join(hostile, '.vault', 'credentials'), 'VAULT_CLIENT_SECRET=x\n')
    chmodSync(join(hostile, '.vault', 'credentials'), 0o644)
    const { warnings } = await resolveSettings({ 'stack-dir': hostile }, {})
    const command = /run (chmod 600 .*)$/.exec(warnings.join('\n'))![1]!
    execFileSync('sh', ['-c', command], { cwd: stack })
    expect(statSync(join(hostile, '.vault', 'credentials')).mode & 0o777).toBe(0o600)
    expect(readdirSync(stack).sort()).toEqual([basename(hostile)])
  })

  it('warns when the credentials file is in a git repository and not ignored, and not once it is ignored', async () => {
    writeEnv('VAULT_CLIENT_SECRET=x\n')
    execFileSync('git', ['init', '-q', stack])
    expect((await resolveSettings({ 'stack-dir': stack }, {})).warnings.join('\n')).toMatch(
      /not ignored by git/,
    )
    writeFileSync(join(stack, '.gitignore'), '.vault/\n')
    expect((await resolveSettings({ 'stack-dir': stack }, {})).warnings).toEqual([])
  })
})

describe('vaultBaseUrl', () => {
  it.each([
    ['https://vault.example', false, true],
    ['http://127.0.0.1:8080', false, true],
    ['http://localhost:8080', false, true],
    ['http://[::1]:8080', false, true],
    ['http://vault.example', false, false],
    ['http://192.168.1.5', false, false],
    ['http://vault.example', true, true],
  ])('%s (insecure %s) accepted: %s', (domain, insecure, accepted) => {
    const attempt = () => vaultBaseUrl({ domain, insecure })
    if (accepted) expect(attempt()).toBeInstanceOf(URL)
    else expect(attempt).toThrow(expect.objectContaining({ exitCode: ExitCode.usage }))
  })

  it('is exit 3 without a domain', () => {
    expect(() => vaultBaseUrl({ insecure: false })).toThrow(
      expect.objectContaining({ exitCode: ExitCode.notConfigured }),
    )
  })

  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['localhost', true],
    ['10.0.0.1', false],
    ['127.0.0.1.example.com', false],
    ['0:0:0:0:0:0:0:1', true],
    ['example.com', false],
  ])('isLoopbackHost(%s) = %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected)
  })
})
