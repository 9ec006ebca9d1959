/**
 * `vault login` and `vault logout` in process against a real vault server over HTTP (moved from the
 * spawned test/integration/cli-vault.test.ts): the token cache file, exit codes, the secret never echoed.
 */
import { readFileSync, statSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenFilePath } from '../../../src/client/token-store.js'
import Export from '../../../src/commands/export.js'
import Login from '../../../src/commands/login.js'
import Logout from '../../../src/commands/logout.js'
import { runCommand } from '../../helpers/run-command.js'
import { createTempHome } from '../../helpers/temp-home.js'
import { canaryValues as canaries, startCliVault, type SeededVault } from '../../helpers/seeded-vault.js'

// a real server and a database initialised in the hook: seconds on a loaded machine
const serverStart = 60_000

let vault: SeededVault
let env: Record<string, string>
let home: SeededVault['home']
beforeAll(async () => {
  vault = await startCliVault()
  ;({ env, home } = vault)
}, serverStart)
afterAll(async () => vault?.stop())

describe('vault login / logout', () => {
  it('caches the token in a mode-600 file under XDG_STATE_HOME and says where, never the token', async () => {
    const result = await runCommand(Login, ['--json'], { env })
    expect(result.exitCode).toBe(0)
    const login = JSON.parse(result.stdout) as Record<string, unknown>
    expect(login).toMatchObject({ store: 'file', clientId: env.VAULT_CLIENT_ID })
    const file = tokenFilePath(home.env)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const cached = Object.values(
      JSON.parse(readFileSync(file, 'utf8')) as Record<string, { accessToken: string }>,
    )
    expect(cached).toHaveLength(1)
    expect(result.stdout + result.stderr).not.toContain(cached[0]!.accessToken)
    expect(readFileSync(file, 'utf8')).not.toContain(env.VAULT_CLIENT_SECRET)
  })

  it('lets export use the cached token without the client secret', async () => {
    const { VAULT_CLIENT_SECRET: _secret, ...withoutSecret } = env
    const result = await runCommand(Export, ['--env', 'dev', '--format', 'json'], { env: withoutSecret })
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ DATABASE_PASSWORD: 'db-pw-1' })
  })

  it('logout forgets the token; export without the secret then says "not logged in" (exit 3)', async () => {
    expect((await runCommand(Logout, [], { env })).exitCode).toBe(0)
    const { VAULT_CLIENT_SECRET: _secret, ...withoutSecret } = env
    const result = await runCommand(Export, ['--env', 'dev'], { env: withoutSecret })
    expect(result.exitCode).toBe(3)
    expect(result.stderr).toMatch(/not logged in/)
  })

  it('works in CI with no prior login when the credentials are in the environment', async () => {
    const fresh = createTempHome()
    try {
      const result = await runCommand(Export, ['--env', 'dev', '--format', 'json'], {
        env: { ...env, ...fresh.env },
      })
      expect(result.exitCode).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject(canaries)
    } finally {
      fresh.cleanup()
    }
  })

  it('refuses a wrong client secret with exit 4 and does not echo it', async () => {
    const fresh = createTempHome()
    try {
      const result = await runCommand(Login, [], {
        env: { ...env, ...fresh.env, VAULT_CLIENT_SECRET: 'CANARY-wrong-secret' },
      })
      expect(result.exitCode).toBe(4)
      expect(result.stdout + result.stderr).not.toContain('CANARY-wrong-secret')
    } finally {
      fresh.cleanup()
    }
  })
})
