/**
 * Issue 35 item 5: the README once had operators `export ENCRYPTION_KEY=...` for the vault server, and
 * an application with its own ENCRYPTION_KEY variable then received the vault server's key from
 * `vault run` and `render`. With canaries for ENCRYPTION_KEY, JWT_SECRET and DB_URL in the host
 * environment, `run -- env`, `render`, `export` and `inject` never show them; a vault secret named
 * JWT_SECRET still reaches the stack, and `--allow-env ENCRYPTION_KEY` lets the host's value through
 * (which shows the check can fail). `vault run` is the built CLI, as its child's environment is the
 * point; render, export and inject run in this process, the canaries in its environment.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSession } from '../../src/client/session.js'
import { VaultApi } from '../../src/client/vault-api.js'
import { runCli } from '../helpers/cli.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'

let server: TestVault
let home: TempHome
let env: Record<string, string>
const work = mkdtempSync(join(tmpdir(), 'vault-server-keys-'))
const canaries = {
  ENCRYPTION_KEY: 'canary-encryption-key-7f3a',
  JWT_SECRET: 'canary-jwt-secret-7f3a',
  DB_URL: 'postgres://vault:canary-db-7f3a@db/vault',
  VAULT_ENCRYPTION_KEY: 'canary-vault-encryption-key-7f3a',
  VAULT_JWT_SECRET: 'canary-vault-jwt-secret-7f3a',
}
const sawCanary = (text: string) => /canary-[a-z-]+7f3a/.test(text)

beforeAll(async () => {
  server = await startVaultServer({})
  home = createTempHome()
  env = {
    ...home.env,
    ...canaries,
    ...deploymentVariables(server),
  }
  const api = new VaultApi(
    createSession(
      { domain: server.url, projectId: server.projectId, ...server.deploymentCredentials, insecure: false },
      { VAULT_KEYCHAIN: 'off', XDG_STATE_HOME: join(work, 'writer-state') },
    ),
  )
  await api.putSecret('APP_TOKEN', 'app-token-1', 'dev')
  await api.putSecret('JWT_SECRET', 'the-apps-own-jwt-secret', 'dev')
  writeFileSync(
    join(work, 'compose.yaml'),
    [
      'services:',
      '  app:',
      '    image: busybox',
      '    environment:',
      '      ENCRYPTION_KEY: ${ENCRYPTION_KEY:-unset}',
      '      JWT_SECRET: ${JWT_SECRET:-unset}',
      '      DB_URL: ${DB_URL:-unset}',
      '      KEY_COPY: ${VAULT_ENCRYPTION_KEY:-unset}',
      '      JWT_COPY: ${VAULT_JWT_SECRET:-unset}',
      '      APP_TOKEN: ${APP_TOKEN}',
      '',
    ].join('\n'),
  )
  writeFileSync(
    join(work, 'app.tpl'),
    'ek=${ENCRYPTION_KEY:-unset} jwt=${JWT_SECRET:-unset} db=${DB_URL:-unset}\n',
  )
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

describe("the vault server's keys in the host environment", () => {
  it('vault run -- env: the child never receives them; a vault secret of the same name is passed', async () => {
    const result = await runCli(['run', '--env', 'dev', '--no-mask', '--', 'env'], { env, cwd: work })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(sawCanary(result.stdout + result.stderr)).toBe(false)
    expect(result.stdout).toContain('JWT_SECRET=the-apps-own-jwt-secret\n')
    expect(result.stdout).toContain('APP_TOKEN=app-token-1\n')
    expect(result.stdout).not.toMatch(/^(ENCRYPTION_KEY|DB_URL)=/m)
  })

  it('vault run --prefer-host-env and --check do not pass or interpolate them either', async () => {
    const result = await runCli(
      ['run', '--env', 'dev', '--no-mask', '--prefer-host-env', '--check', '--', 'env'],
      {
        env,
        cwd: work,
      },
    )
    expect(result.exitCode, result.stderr).toBe(0)
    expect(sawCanary(result.stdout + result.stderr)).toBe(false)
  })

  it('vault run --allow-env ENCRYPTION_KEY passes that one host value, and only it', async () => {
    const result = await runCli(
      ['run', '--env', 'dev', '--no-mask', '--allow-env', 'ENCRYPTION_KEY', '--', 'env'],
      {
        env,
        cwd: work,
      },
    )
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain(`ENCRYPTION_KEY=${canaries.ENCRYPTION_KEY}\n`)
    expect(result.stdout).not.toContain(canaries.DB_URL)
  })

  it.each([
    ['render', ['render', '--env', 'dev']],
    ['render --prefer-host-env', ['render', '--env', 'dev', '--prefer-host-env']],
    ['render without --env', ['render']],
    ['render --check', ['render', '--env', 'dev', '--check']],
    ['render --variables', ['render', '--env', 'dev', '--variables']],
    ['export', ['export', '--env', 'dev']],
    ['export --format shell', ['export', '--env', 'dev', '--format', 'shell']],
    ['inject', ['inject', '--env', 'dev', '-i', 'app.tpl']],
  ])('%s never shows them', async (_what, args) => {
    const result = await runCommandLine(args, { env, cwd: work })
    expect(result.exitCode, result.stderr).toBeLessThan(11)
    expect(result.stdout.length).toBeGreaterThan(0)
    expect(sawCanary(result.stdout + result.stderr)).toBe(false)
  })

  it('render and inject interpolate the vault secret of the same name, and the host value --allow-env names', async () => {
    const rendered = await runCommandLine(['render', '--env', 'dev', '--allow-env', 'DB_URL'], {
      env,
      cwd: work,
    })
    expect(rendered.exitCode, rendered.stderr).toBe(0)
    expect(rendered.stdout).toContain('JWT_SECRET: the-apps-own-jwt-secret')
    expect(rendered.stdout).toContain(`DB_URL: ${canaries.DB_URL}`)
    expect(rendered.stdout).toContain('ENCRYPTION_KEY: unset')
    const injected = await runCommandLine(
      ['inject', '--env', 'dev', '-i', 'app.tpl', '--allow-env', 'ENCRYPTION_KEY'],
      {
        env,
        cwd: work,
      },
    )
    expect(injected.exitCode, injected.stderr).toBe(0)
    expect(injected.stdout).toBe(`ek=${canaries.ENCRYPTION_KEY} jwt=the-apps-own-jwt-secret db=unset\n`)
  })
})
