/**
 * `vault inject` (the built CLI) against a real vault server (SQLite and PostgreSQL): the file is
 * written with the vault's values and mode 600, --exec (a child process) runs after the write and its
 * exit code is passed through; values never appear on stderr. --check, stdout and the refusals run in
 * process: test/unit/commands/inject.test.ts.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { availableBackends, startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const canary = 'CANARY-inject-0a9f4e'
const secrets = { INJ_PASSWORD: canary, INJ_USER: 'app' }

describe.each(availableBackends())('vault inject (%s)', (backend) => {
  let vault: DeliveryVault
  let dir: string
  beforeAll(async () => {
    vault = await startDeliveryVault(backend, secrets)
    dir = mkdtempSync(join(vault.home.dir, 'inject-'))
    writeFileSync(
      join(dir, 'app.ini.tpl'),
      '[db]\nuser = ${INJ_USER}\npassword = "${INJ_PASSWORD}"\nport = ${INJ_PORT:-5432}\nliteral = $$HOME\n',
    )
  })
  afterAll(async () => vault?.stop())
  const cli = (args: string[]) => runCli(args, { env: vault.env, cwd: dir })

  it('writes the rendered file with mode 600, then runs --exec', async () => {
    const result = await cli([
      'inject',
      '-i',
      'app.ini.tpl',
      '-o',
      'app.ini',
      '--env',
      'dev',
      '--exec',
      'test -f app.ini && echo reloaded > reload.marker',
    ])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(readFileSync(join(dir, 'app.ini'), 'utf8')).toBe(
      `[db]\nuser = app\npassword = "${canary}"\nport = 5432\nliteral = $HOME\n`,
    )
    expect(statSync(join(dir, 'app.ini')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(dir, 'reload.marker'), 'utf8')).toBe('reloaded\n')
    expect(result.stdout + result.stderr).not.toContain(canary)
  })

  it('passes a failing --exec exit code through', async () => {
    const result = await cli([
      'inject',
      '-i',
      'app.ini.tpl',
      '-o',
      'app.ini',
      '--env',
      'dev',
      '--exec',
      'exit 4',
    ])
    expect(result.exitCode).toBe(4)
  })
})
