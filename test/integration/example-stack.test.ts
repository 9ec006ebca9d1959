/**
 * Issue 8: the example stack against a real vault server and the real docker-compose (v1) client:
 * `vault run --env dev -- docker-compose config` accepts it with the vault's values, and fails with
 * compose's own required-variable message once a required secret is gone from the vault.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import SecretsDelete from '../../src/commands/secrets/delete.js'
import SecretsGet from '../../src/commands/secrets/get.js'
import { runCli } from '../helpers/cli.js'
import { runCommand } from '../helpers/run-command.js'
import { createStackDir, fillBaseSecrets, type StackDir } from '../helpers/stack-env.js'
import { startVaultServer, type TestVault } from '../helpers/vault-server.js'

const composeFile = fileURLToPath(new URL('../../examples/stack/compose.yaml', import.meta.url))
const canary = 'CANARY-objstore-4f1d9a'

describe('example stack under vault run (real vault server, real docker-compose)', () => {
  let vault: TestVault
  let stack: StackDir

  beforeAll(async () => {
    vault = await startVaultServer()
    stack = createStackDir(vault)
    const init = await fillBaseSecrets(stack, 'dev', canary)
    expect(init.exitCode, init.stderr).toBe(0)
    expect(init.stdout + init.stderr).not.toContain(canary)
  })
  afterAll(async () => vault?.stop())

  it('docker-compose config accepts the stack with the vault values injected', async () => {
    const password = await runCommand(SecretsGet, ['DATABASE_PASSWORD', '--env', 'dev'], { env: stack.env })
    expect(password.exitCode, password.stderr).toBe(0)
    const value = password.stdout.trim()
    expect(value).toMatch(/^[A-Za-z0-9]{32}$/)
    const result = await runCli(
      ['run', '--env', 'dev', '--no-mask', '--', 'docker-compose', '-f', composeFile, 'config'],
      { env: stack.env },
    )
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain(`POSTGRES_PASSWORD: ${value}`)
    expect(result.stdout).toContain(`B2_ACCOUNT_KEY: ${canary}`)
    expect(result.stdout).toContain('subnet: 192.168.91.0/24')
  })

  it("fails with compose's required-variable message when a required secret is missing from the vault", async () => {
    const removed = await runCommand(SecretsDelete, ['DATABASE_PASSWORD', '--env', 'dev'], {
      env: stack.env,
    })
    expect(removed.exitCode, removed.stderr).toBe(0)
    const result = await runCli(
      ['run', '--env', 'dev', '--', 'docker-compose', '-f', composeFile, 'config'],
      { env: stack.env },
    )
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).toContain('Missing mandatory value')
    expect(result.stderr).toContain('DATABASE_PASSWORD is missing from the vault')
  })
})
