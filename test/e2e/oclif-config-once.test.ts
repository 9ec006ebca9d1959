/**
 * A command line on the full oclif path (everything src/cli/lean.ts does not take) loads oclif's Config
 * once: oclif's Command.run used to build a second one from the Config its main.run had just loaded
 * (BaseCommand.run now uses that one). Counted through oclif's own debug line, which its Config.load
 * writes at the end of every load (`DEBUG=oclif:config` keeps the command lines off the lean path).
 * Help, `--version`, an unknown command (the not-found plugin's hook) and failures are in the table
 * with their exit codes, so that the one load is shown to change none of them.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { createTempHome } from '../helpers/temp-home.js'

const home = createTempHome()
afterAll(() => home.cleanup())

const loads = (stderr: string) => stderr.split('\n').filter((line) => / oclif:config config done$/.test(line))

describe("the full oclif path loads oclif's Config once", () => {
  it.each([
    ['a command that runs', ['pwgen'], 0, /^[A-Za-z0-9]{32}\n$/],
    ['its --json result', ['pwgen', '--json'], 0, /"values"/],
    ['a usage error', ['pwgen', '--length', '8'], 2, /^$/],
    ['a command that fails (no vault configured)', ['secrets', 'list'], 3, /^$/],
    ['a data command with DEBUG set (not lean)', ['export', '--env', 'dev'], 3, /^$/],
    ['root help', ['--help'], 0, /pwgen\s+generate random passwords/],
    ['topic help', ['secrets', '--help'], 0, /secrets list/],
    ["a command's help", ['secrets', 'list', '--help'], 0, /USAGE/],
    ['--version', ['--version'], 0, /^vault\/\d+\.\d+\.\d+/],
    ['an unknown command (the not-found hook)', ['pwgne'], 127, /^$/],
  ])('%s', async (_case, args, exitCode, stdout) => {
    const result = await runCli(args, {
      env: { ...home.env, DEBUG: 'oclif:config' },
      cwd: home.dir,
      timeout: 30_000,
    })
    expect(result.exitCode).toBe(exitCode)
    expect(result.stdout).toMatch(stdout)
    expect(loads(result.stderr)).toHaveLength(1)
    expect(result.stderr).not.toContain('reloading config')
    if (exitCode === 127) expect(result.stderr).toContain('pwgne is not a vault command')
  })
})

describe('the full oclif path under NODE_ENV=test or development (oclif loads the TypeScript commands)', () => {
  it.each(['test', 'development'])('NODE_ENV=%s: pwgen runs and help prints', async (nodeEnv) => {
    const env = { ...home.env, NODE_ENV: nodeEnv }
    const pwgen = await runCli(['pwgen', '--length', '24', '--charset', 'alnum'], { env, cwd: home.dir })
    expect(pwgen.stderr).toBe('')
    expect(pwgen.exitCode).toBe(0)
    expect(pwgen.stdout).toMatch(/^[A-Za-z0-9]{24}\n$/)
    const help = await runCli(['secrets', 'list', '--help'], { env, cwd: home.dir })
    expect(help.exitCode).toBe(0)
    expect(help.stdout).toContain('USAGE')
  })
})
