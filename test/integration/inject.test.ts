/**
 * `vault inject` against a real vault server (SQLite and PostgreSQL): the file is written with the
 * vault's values and mode 600, --exec runs after the write, --check reports problems (exit 3) and
 * writes nothing; values never appear on stderr.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
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

  it('--check lists every problem with its line, exits 3 and writes nothing', async () => {
    writeFileSync(join(dir, 'bad.tpl'), 'a = ${INJ_PASSWORD}\nb = ${NOT_IN_VAULT:?ask ops}\nc = $UNSET_ONE\n')
    const result = await cli(['inject', '-i', 'bad.tpl', '-o', 'bad.out', '--env', 'dev', '--check'])
    expect(result.exitCode).toBe(3)
    expect(result.stderr).toContain('bad.tpl:2: required variable NOT_IN_VAULT is missing a value: ask ops')
    expect(result.stderr).toContain('bad.tpl:3: The "UNSET_ONE" variable is not set.')
    expect(result.stderr).not.toContain(canary)
    expect(existsSync(join(dir, 'bad.out'))).toBe(false)
  })

  it('refuses to write when a required variable is missing (exit 3)', async () => {
    const result = await cli(['inject', '-i', 'bad.tpl', '-o', 'bad.out', '--env', 'dev'])
    expect(result.exitCode).toBe(3)
    expect(existsSync(join(dir, 'bad.out'))).toBe(false)
  })

  it('prints to stdout without -o', async () => {
    const result = await cli(['inject', '-i', 'app.ini.tpl', '--env', 'dev'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain(`password = "${canary}"`)
  })
})
