/**
 * `vault inject` in process against a real vault server (SQLite, in this process, over HTTP), moved
 * from the spawned test/integration/inject.test.ts: a file written with mode 600, stdout without -o,
 * --check listing every problem with its line (exit 3, nothing written), and a missing required
 * variable refusing the write (exit 3); values never on stderr. --exec (a child process) stays there.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Inject from '../../../src/commands/inject.js'
import { runCommand } from '../../helpers/run-command.js'
import { startSeededVault, type SeededVault } from '../../helpers/seeded-vault.js'

// a real server started and seeded in the hook: seconds on a loaded machine
const serverStart = 60_000
const canary = 'CANARY-inject-0a9f4e'

let vault: SeededVault
let dir: string
beforeAll(async () => {
  vault = await startSeededVault({ INJ_PASSWORD: canary, INJ_USER: 'app' })
  dir = mkdtempSync(join(vault.work, 'inject-'))
  writeFileSync(
    join(dir, 'app.ini.tpl'),
    '[db]\nuser = ${INJ_USER}\npassword = "${INJ_PASSWORD}"\nport = ${INJ_PORT:-5432}\nliteral = $$HOME\n',
  )
  writeFileSync(join(dir, 'bad.tpl'), 'a = ${INJ_PASSWORD}\nb = ${NOT_IN_VAULT:?ask ops}\nc = $UNSET_ONE\n')
}, serverStart)
afterAll(async () => vault?.stop())

const inject = (args: string[]) => runCommand(Inject, ['--env', 'dev', ...args], { env: vault.env, cwd: dir })
const rendered = `[db]\nuser = app\npassword = "${canary}"\nport = 5432\nliteral = $HOME\n`

describe('vault inject', () => {
  it('writes the rendered file with mode 600 and prints no value', async () => {
    const result = await inject(['-i', 'app.ini.tpl', '-o', 'app.ini'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(readFileSync(join(dir, 'app.ini'), 'utf8')).toBe(rendered)
    expect(statSync(join(dir, 'app.ini')).mode & 0o777).toBe(0o600)
    expect(result.stdout + result.stderr).not.toContain(canary)
  })

  it('prints to stdout without -o', async () => {
    const result = await inject(['-i', 'app.ini.tpl'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe(rendered)
    expect(result.stderr).not.toContain(canary)
  })

  it('--check lists every problem with its line, exits 3 and writes nothing', async () => {
    const result = await inject(['-i', 'bad.tpl', '-o', 'bad.out', '--check'])
    expect(result.exitCode).toBe(3)
    expect(result.stderr).toContain('bad.tpl:2: required variable NOT_IN_VAULT is missing a value: ask ops')
    expect(result.stderr).toContain('bad.tpl:3: The "UNSET_ONE" variable is not set.')
    expect(result.stderr).not.toContain(canary)
    expect(existsSync(join(dir, 'bad.out'))).toBe(false)
  })

  it('refuses to write when a required variable is missing (exit 3)', async () => {
    const result = await inject(['-i', 'bad.tpl', '-o', 'bad.out'])
    expect(result.exitCode).toBe(3)
    expect(result.stderr).not.toContain(canary)
    expect(existsSync(join(dir, 'bad.out'))).toBe(false)
  })

  it('refuses a template that does not exist (exit 5) and writes nothing', async () => {
    const result = await inject(['-i', 'absent.tpl', '-o', 'absent.out'])
    expect(result.exitCode).toBe(5)
    expect(existsSync(join(dir, 'absent.out'))).toBe(false)
  })
})
