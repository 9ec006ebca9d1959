/**
 * Hostile inputs and neighbours against secret delivery: `vault run` (compose v1 secret files in the
 * tmpfs directory, the child's environment) and `vault inject` (the rendered file and its messages).
 * One case per attack; the PROPERTY checked is that no canary value reaches anything that should not
 * have it (another user's file, a file left behind, stderr or --json output) and that the CLI ends
 * with one clear line, never exit 1 with Node's own message.
 */
import { createHash } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { writeFileAtomic600 } from '../../../src/fs/atomic-file.js'
import { runCli, type CliResult } from '../../helpers/cli.js'
import { runCommandLine } from '../../helpers/run-command-line.js'
import { runVault } from '../../helpers/run-vault.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'
import {
  deploymentApi,
  startVaultServer,
  type TestVault,
  deploymentVariables,
} from '../../helpers/vault-server.js'

/** Set by a test: called once right after the next exclusive create of a `.partial` temporary. */
const race = vi.hoisted(() => ({ afterExclusiveCreate: undefined as ((path: string) => void) | undefined }))

vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>()
  const open = async (...args: Parameters<typeof fs.open>): Promise<FileHandle> => {
    const handle = await fs.open(...args)
    const hook = race.afterExclusiveCreate
    if (hook && args[1] === 'wx' && String(args[0]).endsWith('.partial')) {
      race.afterExclusiveCreate = undefined
      hook(String(args[0]))
    }
    return handle
  }
  return { ...fs, default: { ...fs, open }, open }
})

const canary = 'CANARY-delivery-5e1b7a'
const otherCanary = 'CANARY-delivery-second-77d0'
const isRoot = process.getuid?.() === 0
/** uid and gid of `nobody`: the other local user. */
const nobody = 65534

let vault: TestVault
let home: TempHome
let work: string
let env: Record<string, string>

beforeAll(async () => {
  vault = await startVaultServer()
  home = createTempHome()
  const api = deploymentApi(vault, join(home.dir, 'seed-state'))
  await api.putSecret('DELIVERY_CANARY', canary, 'dev')
  await api.putSecret('DELIVERY_OTHER', otherCanary, 'dev')
  work = realpathSync(mkdtempSync(join(tmpdir(), 'hostile-delivery-')))
  chmodSync(work, 0o755)
  env = {
    PATH: process.env.PATH ?? '',
    ...home.env,
    ...deploymentVariables(vault),
  }
})

afterAll(async () => {
  rmSync(work, { recursive: true, force: true })
  home?.cleanup()
  await vault?.stop()
})

/** A fresh directory under the work directory. */
function scratch(name: string): string {
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  return dir
}

/** Nothing vault printed holds a canary, and it ended with its own error, not Node's. */
function expectCleanFailure(result: CliResult): void {
  expect(result.stdout + result.stderr).not.toContain(canary)
  expect(result.stdout + result.stderr).not.toContain(otherCanary)
  expect(result.exitCode, result.stderr).not.toBe(0)
  expect(result.exitCode, result.stderr).not.toBe(1)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

describe('vault run: compose v1 secret files in the tmpfs directory', () => {
  /** A stack whose compose file sources secrets from the vault, a fake docker-compose, a sticky runtime dir. */
  function stack(name: string, variables: string[]) {
    const dir = scratch(name)
    const runtime = join(dir, 'runtime')
    mkdirSync(runtime)
    chmodSync(runtime, 0o1777)
    const secrets = variables
      .map((variable, index) => `  s${index}:\n    environment: ${variable}\n`)
      .join('')
    writeFileSync(join(dir, 'compose.yaml'), `services:\n  app:\n    image: busybox\nsecrets:\n${secrets}`)
    const compose = join(dir, 'docker-compose')
    writeFileSync(compose, `#!/bin/sh\necho started > ${JSON.stringify(join(dir, 'started'))}\n`, {
      mode: 0o755,
    })
    const identity = createHash('sha256')
      .update(JSON.stringify([dir, undefined]))
      .digest('hex')
    const secretDir = join(runtime, `vault-secrets-${identity.slice(0, 16)}`)
    const run = (subcommand = 'up') =>
      runCli(['run', '--env', 'dev', '--', compose, subcommand], {
        env: { ...env, XDG_RUNTIME_DIR: runtime },
        cwd: dir,
      })
    return { dir, runtime, secretDir, run, started: () => existsSync(join(dir, 'started')) }
  }

  /** A file of the other user that anyone may write: where a planted symlink points. */
  function lootFile(dir: string): string {
    const loot = join(dir, 'loot')
    writeFileSync(loot, '', { mode: 0o666 })
    chmodSync(loot, 0o666)
    chownSync(loot, nobody, nobody)
    return loot
  }

  it.skipIf(!isRoot)(
    "writes no value through a directory another user planted at the secret directory's path",
    async () => {
      const { dir, secretDir, run, started } = stack('planted-dir', ['DELIVERY_CANARY'])
      const loot = lootFile(dir)
      mkdirSync(secretDir, { mode: 0o777 })
      chmodSync(secretDir, 0o777)
      symlinkSync(loot, join(secretDir, 'secret-s0'))
      chownSync(secretDir, nobody, nobody)
      const result = await run()
      expect(readFileSync(loot, 'utf8')).not.toContain(canary)
      expect(readdirSync(secretDir)).toEqual(['secret-s0'])
      expect(started(), 'compose was started with files in a directory another user owns').toBe(false)
      expectCleanFailure(result)
      expect(result.stderr).toContain(secretDir)
    },
  )

  it.skipIf(!isRoot)(
    "writes no value through a symlink another user planted at the secret directory's path",
    async () => {
      const { dir, secretDir, run, started } = stack('planted-link', ['DELIVERY_CANARY'])
      const theirs = join(dir, 'theirs')
      mkdirSync(theirs, { mode: 0o777 })
      chmodSync(theirs, 0o777)
      const loot = lootFile(dir)
      symlinkSync(loot, join(theirs, 'secret-s0'))
      chownSync(theirs, nobody, nobody)
      symlinkSync(theirs, secretDir)
      const result = await run()
      expect(readFileSync(loot, 'utf8')).not.toContain(canary)
      expect(readdirSync(theirs)).toEqual(['secret-s0'])
      expect(started()).toBe(false)
      expectCleanFailure(result)
    },
  )

  it('leaves no secret file behind when a later secret of the stack has no value', async () => {
    const { runtime, run, started } = stack('missing-second', ['DELIVERY_CANARY', 'DELIVERY_UNSET'])
    const result = await run()
    expect(result.exitCode).toBe(3)
    expect(result.stderr).toContain('DELIVERY_UNSET')
    expect(started()).toBe(false)
    expect(readdirSync(runtime), 'the first secret was left on tmpfs').toEqual([])
    expectCleanFailure(result)
  })
})

describe("vault run: a value the child's environment cannot carry", () => {
  it('refuses a value with a NUL byte in one clear line that does not show it', async () => {
    const dir = scratch('nul-value')
    const api = deploymentApi(vault, join(dir, 'seed-state'))
    await api.putSecret('DELIVERY_NUL', `head\u0000${canary}`, 'staging')
    const result = await runCli(['run', '--env', 'staging', '--', 'sh', '-c', 'echo started'], {
      env,
      cwd: dir,
    })
    expect(result.stdout).not.toContain('started')
    expect(result.stderr).toContain('DELIVERY_NUL')
    expectCleanFailure(result)
  })
})

describe('vault inject: hostile templates and output paths', () => {
  // in this process: inject starts no child, and its stdout, stderr and files are what is checked
  const inject = (dir: string, args: string[]) =>
    runCommandLine(['inject', '--env', 'dev', ...args], { env, cwd: dir })

  it.each([
    {
      form: 'the ${NAME:?message} of a missing variable',
      line: 'x=${DELIVERY_UNSET:?see ${DELIVERY_CANARY}}',
    },
    { form: 'the ${NAME?message} of a missing variable', line: 'x=${DELIVERY_UNSET?see $DELIVERY_CANARY}' },
  ])('keeps a value out of $form that references a secret', async ({ line }) => {
    const dir = scratch('required-message')
    writeFileSync(join(dir, 'app.tpl'), `${line}\n`)
    for (const args of [
      ['-o', 'app.conf'],
      ['--check'],
      ['--check', '--json'],
      ['-o', 'app.conf', '--json'],
    ]) {
      const result = await inject(dir, ['-i', 'app.tpl', ...args])
      expect(result.exitCode, args.join(' ')).toBe(3)
      expect(result.stdout + result.stderr, args.join(' ')).not.toContain(canary)
      expect(result.stderr + result.stdout, args.join(' ')).toContain('DELIVERY_UNSET')
    }
    expect(existsSync(join(dir, 'app.conf'))).toBe(false)
  })

  it("keeps a value out of a compose file's ${NAME:?message} in vault run --check and render", async () => {
    const dir = scratch('required-message-compose')
    writeFileSync(
      join(dir, 'compose.yaml'),
      'services:\n  app:\n    image: "busybox:${DELIVERY_UNSET:?see ${DELIVERY_CANARY}}"\n',
    )
    for (const args of [
      ['run', '--env', 'dev', '--check', '--', 'true'],
      ['render', '--env', 'dev'],
      ['render', '--env', 'dev', '--check', '--json'],
    ]) {
      const result = await runVault(args, { env, cwd: dir })
      expect(result.exitCode, args.join(' ')).not.toBe(0)
      expect(result.stdout + result.stderr, args.join(' ')).not.toContain(canary)
      expect(result.stdout + result.stderr, args.join(' ')).toContain('DELIVERY_UNSET')
    }
  })

  it("never writes the CLI's own client secret or token, which a template from a third-party stack may name", async () => {
    const dir = scratch('credential-template')
    const credentials = {
      ...env,
      VAULT_TOKEN: 'CANARY-token-in-env-0b1c',
      VAULT_ACCESS_TOKEN: 'CANARY-access-token-in-env-9e2d',
    }
    const stolen = [env.VAULT_CLIENT_SECRET!, credentials.VAULT_TOKEN, credentials.VAULT_ACCESS_TOKEN]
    writeFileSync(
      join(dir, 'app.tpl'),
      'a=${VAULT_CLIENT_SECRET}\nb=$VAULT_TOKEN\nc=${VAULT_ACCESS_TOKEN:-none}\nd=${DELIVERY_CANARY}\n',
    )
    const written = await runCommandLine(['inject', '--env', 'dev', '-i', 'app.tpl', '-o', 'app.conf'], {
      env: credentials,
      cwd: dir,
    })
    expect(written.exitCode, written.stderr).toBe(0)
    const printed = await runCommandLine(['inject', '--env', 'dev', '-i', 'app.tpl'], {
      env: credentials,
      cwd: dir,
    })
    expect(printed.exitCode, printed.stderr).toBe(0)
    for (const output of [readFileSync(join(dir, 'app.conf'), 'utf8'), printed.stdout]) {
      expect(output).toBe(`a=\nb=\nc=none\nd=${canary}\n`)
      for (const value of stolen) expect(output).not.toContain(value)
    }
    writeFileSync(join(dir, 'required.tpl'), 'a=${VAULT_CLIENT_SECRET:?needed}\n')
    const required = await runCommandLine(
      ['inject', '--env', 'dev', '-i', 'required.tpl', '-o', 'required.conf'],
      {
        env: credentials,
        cwd: dir,
      },
    )
    expect(required.exitCode, required.stderr).toBe(3)
    expect(existsSync(join(dir, 'required.conf'))).toBe(false)
  })

  it('refuses a template that is a 1.5 GiB sparse file, or a link to /dev/zero, after 16 MiB and in one clear line', async () => {
    const dir = scratch('endless-template')
    const sparse = join(dir, 'sparse.tpl')
    writeFileSync(sparse, '')
    truncateSync(sparse, 1536 * 1024 * 1024)
    symlinkSync('/dev/zero', join(dir, 'zero.tpl'))
    for (const template of ['sparse.tpl', 'zero.tpl', '/dev/zero']) {
      const started = Date.now()
      const result = await inject(dir, ['-i', template, '-o', 'app.conf'])
      expectCleanFailure(result)
      expect(result.stderr, template).toMatch(/template is larger than 16 MiB|template is a character device/)
      expect(Date.now() - started, template).toBeLessThan(10_000)
      expect(existsSync(join(dir, 'app.conf'))).toBe(false)
    }
  })

  it('fails in one clear line when the directory of -o does not exist', async () => {
    const dir = scratch('missing-output-dir')
    writeFileSync(join(dir, 'app.tpl'), 'x=${DELIVERY_CANARY}\n')
    const result = await inject(dir, ['-i', 'app.tpl', '-o', join(dir, 'absent', 'app.conf')])
    expectCleanFailure(result)
    expect(result.stderr).toContain(join(dir, 'absent', 'app.conf'))
  })

  it('writes no value into a file another user swaps in for the temporary before it is written', async () => {
    const dir = scratch('swapped-temporary')
    const loot = join(dir, 'loot')
    writeFileSync(loot, '', { mode: 0o666 })
    race.afterExclusiveCreate = (temporary) => {
      // the other user, in a directory both may write, wins the race between create and write
      unlinkSync(temporary)
      symlinkSync(loot, temporary)
    }
    await writeFileAtomic600(join(dir, 'app.conf'), `password=${canary}\n`).catch(() => undefined)
    expect(race.afterExclusiveCreate).toBeUndefined()
    expect(readFileSync(loot, 'utf8')).not.toContain(canary)
  })
})
