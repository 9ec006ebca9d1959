/**
 * `vault secrets import --only` in process against a real vault: the names comma-separated, as the
 * help's example gives them, or the flag repeated, as a user picking two lines of authentik's `.env`
 * (PG_PASS, AUTHENTIK_SECRET_KEY, and a setting that stays) typed it; the repeated form was refused
 * with "Flag --only can only be specified once".
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import SecretsImport from '../../../../src/commands/secrets/import.js'
import { runCommand } from '../../../helpers/run-command.js'
import { startSeededVault, type SeededVault } from '../../../helpers/seeded-vault.js'

// a real server and a database initialised in the hook: seconds on a loaded machine
const serverStart = 60_000

describe('vault secrets import --only', () => {
  let vault: SeededVault
  beforeAll(async () => {
    vault = await startSeededVault({})
    writeFileSync(
      join(vault.work, '.env'),
      'PG_PASS=pg-canary-1\nAUTHENTIK_SECRET_KEY=key-canary-2\nAUTHENTIK_ERROR_REPORTING__ENABLED=true\n',
    )
  }, serverStart)
  afterAll(async () => vault?.stop())

  it.each([
    ['repeated', ['--only', 'PG_PASS', '--only', 'AUTHENTIK_SECRET_KEY']],
    ['comma-separated', ['--only', 'PG_PASS,AUTHENTIK_SECRET_KEY']],
    ['repeated, before the file', ['--only', 'PG_PASS', '--only', 'AUTHENTIK_SECRET_KEY', '.env']],
  ])('takes the names %s', async (_, only) => {
    const args = only.includes('.env') ? only : ['.env', ...only]
    const run = await runCommand(SecretsImport, [...args, '--env', 'dev', '--dry-run', '--json'], {
      env: vault.env,
      cwd: vault.work,
    })
    expect(run.exitCode, run.stderr).toBe(0)
    const result = JSON.parse(run.stdout) as { secrets: { name: string; action: string }[] }
    expect(result.secrets.map((entry) => [entry.name, entry.action])).toEqual([
      ['PG_PASS', 'created'],
      ['AUTHENTIK_SECRET_KEY', 'created'],
    ])
    expect(run.stdout + run.stderr).not.toMatch(/canary/)
  })
})
