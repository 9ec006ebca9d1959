/**
 * runCommand (test/helpers/run-command.ts) leaves the test process as it found it, so command tests
 * can share one worker: exit code, environment, working directory, stdout/stderr, console, signal
 * listeners and the class's id; and it checks every --json answer against test/schemas.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BaseCommand } from '../../src/cli/base-command.js'
import Pwgen from '../../src/commands/pwgen.js'
import { runCommand } from './run-command.js'

const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'vault-run-command-')))
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }))

const noop = () => undefined

/** A command (named like `pwgen`, so it gets that id and schema) that changes everything it can. */
class Meddler extends BaseCommand<typeof Meddler> {
  static override enableJsonFlag = true
  public async run(): Promise<unknown> {
    process.exitCode = 9
    process.env.RUN_COMMAND_ADDED = 'added'
    process.env.RUN_COMMAND_GIVEN = 'changed by the command'
    delete process.env.RUN_COMMAND_KEPT
    process.chdir(elsewhere)
    process.on('SIGTERM', noop)
    process.on('exit', noop)
    process.stdout.write('out\n')
    process.stderr.write('err\n')
    console.log('log')
    return { values: [42] }
  }
}
Object.defineProperty(Meddler, 'name', { value: 'Pwgen' })

function snapshot() {
  return {
    exitCode: process.exitCode,
    env: { ...process.env },
    cwd: process.cwd(),
    write: [process.stdout.write, process.stderr.write, console.log, console.error],
    stdin: process.stdin,
    listeners: ['SIGINT', 'SIGTERM', 'exit'].map((event) => process.listeners(event as 'exit').length),
  }
}

describe('runCommand', () => {
  it('puts back exit code, environment, directory, streams and signal listeners a command changed', async () => {
    process.env.RUN_COMMAND_KEPT = 'kept'
    process.env.VAULT_DOMAIN_OF_THE_DEVELOPER = 'https://somewhere.example'
    try {
      const before = snapshot()
      const run = await runCommand(Meddler, [], { env: { RUN_COMMAND_GIVEN: 'given' }, cwd: tmpdir() })
      expect(run).toMatchObject({ exitCode: 9, stdout: 'out\nlog\n', stderr: 'err\n' })
      expect(snapshot()).toEqual(before)
      expect(Meddler.id).toBeUndefined()
    } finally {
      delete process.env.RUN_COMMAND_KEPT
      delete process.env.VAULT_DOMAIN_OF_THE_DEVELOPER
    }
  })

  it("hides the test process's VAULT_ variables from the command, and gives it those of `env`", async () => {
    process.env.VAULT_DOMAIN = 'https://the-developers-own.example'
    try {
      const seen: Record<string, string | undefined> = {}
      class Looker extends BaseCommand<typeof Looker> {
        public async run(): Promise<void> {
          seen.domain = process.env.VAULT_DOMAIN
          seen.env = process.env.VAULT_ENV
        }
      }
      Object.defineProperty(Looker, 'name', { value: 'Pwgen' })
      await runCommand(Looker, [], { env: { VAULT_ENV: 'dev' } })
      expect(seen).toEqual({ domain: undefined, env: 'dev' })
      expect(process.env.VAULT_DOMAIN).toBe('https://the-developers-own.example')
    } finally {
      delete process.env.VAULT_DOMAIN
    }
  })

  it('with `clean` gives the command only PATH, LANG and `env`, as runCli does, and puts the rest back', async () => {
    process.env.RUN_COMMAND_KEPT = 'kept'
    try {
      let seen: Record<string, string | undefined> = {}
      class Looker extends BaseCommand<typeof Looker> {
        public async run(): Promise<void> {
          seen = { ...process.env }
        }
      }
      Object.defineProperty(Looker, 'name', { value: 'Pwgen' })
      const before = snapshot()
      await runCommand(Looker, [], { clean: true, env: { GIVEN: 'given' } })
      expect(seen).toEqual({ PATH: process.env.PATH, LANG: 'C.UTF-8', GIVEN: 'given' })
      expect(snapshot()).toEqual(before)
    } finally {
      delete process.env.RUN_COMMAND_KEPT
    }
  })

  it('puts everything back after a usage error too', async () => {
    const before = snapshot()
    const run = await runCommand(Pwgen, ['--count', 'many'])
    expect(run.exitCode).toBe(2)
    expect(snapshot()).toEqual(before)
  })

  it('refuses a --json answer that does not match test/schemas/<id>.json', async () => {
    class WrongShape extends BaseCommand<typeof WrongShape> {
      static override enableJsonFlag = true
      public async run(): Promise<unknown> {
        return { values: 'not a list' }
      }
    }
    Object.defineProperty(WrongShape, 'name', { value: 'Pwgen' })
    await expect(runCommand(WrongShape, ['--json'])).rejects.toThrow(
      /does not match test\/schemas\/pwgen.json/,
    )
    await expect(runCommand(Meddler, ['--json'])).resolves.toMatchObject({ exitCode: 9 })
  })

  it('gives the command `input` as a piped stdin, and the test its own stdin back', async () => {
    let read = ''
    class Reader extends BaseCommand<typeof Reader> {
      public async run(): Promise<void> {
        expect(process.stdin.isTTY).toBeFalsy()
        for await (const chunk of process.stdin) read += String(chunk)
      }
    }
    Object.defineProperty(Reader, 'name', { value: 'Pwgen' })
    const stdin = process.stdin
    await runCommand(Reader, [], { input: 'piped value\n' })
    expect(read).toBe('piped value\n')
    expect(process.stdin).toBe(stdin)
  })
})
