/**
 * A stack directory wired to a test vault: its `.env` (mode 600) holds the four VAULT_ variables of the
 * deployment identity, and `fillBaseSecrets` runs `vault secrets init` against it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CliResult } from './cli.js'
import { runCommandLine } from './run-command-line.js'
import { deploymentVariables, type TestVault } from './vault-server.js'

export interface StackDir {
  dir: string
  /** Environment for runCli: PATH plus VAULT_STACK_DIR pointing at the stack directory. */
  env: Record<string, string>
}

/** Creates a directory whose .env lets the CLI reach `vault` as the deployment identity. */
export function createStackDir(vault: TestVault): StackDir {
  const dir = mkdtempSync(join(tmpdir(), 'vault-stack-'))
  const lines = Object.entries(deploymentVariables(vault)).map(([name, value]) => `${name}=${value}`)
  writeFileSync(join(dir, '.env'), `${lines.join('\n')}\n`, { mode: 0o600 })
  writeFileSync(join(dir, '.gitignore'), '.env\n')
  return {
    dir,
    env: { VAULT_STACK_DIR: dir, VAULT_KEYCHAIN: 'off', HOME: dir, XDG_STATE_HOME: join(dir, '.state') },
  }
}

/** Inputs for the seed's base secrets that are not generated. */
export const baseSecretFlags = [
  '--data-dir=/srv/homelab',
  '--stack-project-name=homelab',
  '--domainname=example.com',
  '--gateway-domain=gateway.example.com',
  '--gateway-trusted-ips=10.0.0.0/8',
  '--puid=1000',
  '--pgid=1000',
  '--tz=Europe/Berlin',
  '--gateway-api-user=admin',
  '--objstore-account-id=0012ab34cd56',
  '--backup-repository=b2:homelab-backups:stack',
]

/**
 * Runs `vault secrets init --env <environment>` (in this process) with every input given; the object
 * key comes from a file.
 */
export async function fillBaseSecrets(
  stack: StackDir,
  environment = 'dev',
  objstoreKey = 'objstore-key-value',
): Promise<CliResult> {
  const inputs = join(stack.dir, 'inputs.env')
  writeFileSync(inputs, `OBJSTORE_ACCOUNT_KEY=${objstoreKey}\n`, { mode: 0o600 })
  return runCommandLine(
    ['secrets', 'init', '--env', environment, '--values-file', inputs, ...baseSecretFlags],
    {
      env: stack.env,
    },
  )
}
