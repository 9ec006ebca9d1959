/**
 * Secret names from a hostile vault (issue 33, item 1): the server a project directory's
 * `.vault/credentials` names sends names that mean something to a loader (`NODE_OPTIONS=--require=...`),
 * a shell (`X;touch f;Y`, `$(...)`, backticks, a newline), a terminal (ESC, CSI, OSC 52, BEL, NUL, CR)
 * or a JavaScript object (`__proto__`, `constructor`). Every command that reads names runs: run (a plain
 * child and compose), export in every format (shell through `eval`), render, inject, secrets list, a
 * --fallback copy sealed earlier, run --watch and inject --watch. `vault run` and the watches are the
 * built CLI in a process of its own (a child, signals); the others run in this process (runCommandLine),
 * their stdout and stderr captured as a terminal would get them. The PROPERTY
 * checked for every row: exit 8, nothing the user did not run ran (the child's marker, the hidden
 * `touch`, a compose invocation), nothing was written, and no raw control byte reached the terminal.
 */
import { execa } from 'execa'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { writeCopy } from '../../../src/delivery/fallback-store.js'
import { ensureFallbackKey } from '../../../src/delivery/fallback-key.js'
import type { CliResult } from '../../helpers/cli.js'
import { runVault } from '../../helpers/run-vault.js'
import {
  feed,
  json,
  namedSecrets,
  secretRow,
  startHostileVault,
  type HostileVault,
} from '../../helpers/hostile-vault.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'
import { startWatching } from '../../helpers/watched-cli.js'

const work = mkdtempSync(join(tmpdir(), 'vault-hostile-names-'))
/** What a hidden command creates: any file in here is a command that ran. */
const pwned = join(work, 'pwned')
const touched = (what: string) => join(pwned, what)

/** Control bytes a terminal obeys (C0 but newline and tab, DEL, C1). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const rawControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

const hostileNames: [string, string][] = [
  ['a loader option after =', 'NODE_OPTIONS=--require=./x.js --title'],
  ['a shell start-up file after =', 'BASH_ENV=./x.sh'],
  ['a command between semicolons', `X;touch ${touched('semicolon')};Y`],
  ['a command substitution', `$(touch ${touched('substitution')})`],
  ['a backtick substitution', `\`touch ${touched('backtick')}\``],
  ['a newline and a second assignment', `X\nTOUCHED=1\ntouch ${touched('newline')}`],
  ['ESC and CSI (clear screen)', 'X\u001b[2JY'],
  ['OSC 52 (write the clipboard) ended by BEL', 'X\u001b]52;c;cHduZWQ=\u0007Y'],
  ['a NUL byte', 'X\u0000Y'],
  ['a CR forging a line', 'X\rFORGED'],
  ['__proto__', '__proto__'],
  ['constructor', 'constructor'],
  ['a name longer than 256 characters', `A${'B'.repeat(256)}`],
]

let vault: HostileVault
let home: TempHome

beforeAll(async () => {
  vault = await startHostileVault()
  home = createTempHome()
  mkdirSync(join(work, 'bin'))
  // a loader hook and a shell start-up file, should NODE_OPTIONS or BASH_ENV reach a child
  writeFileSync(join(work, 'x.js'), `require('fs').writeFileSync(${JSON.stringify(touched('x-js'))}, '')\n`)
  writeFileSync(join(work, 'x.sh'), `touch ${touched('x-sh')}\n`)
  // docker and docker-compose that only say they were started
  for (const tool of ['docker', 'docker-compose']) {
    writeFileSync(join(work, 'bin', tool), `#!/bin/sh\ntouch ${touched(tool)}\n`, { mode: 0o755 })
  }
  writeFileSync(
    join(work, 'compose.yaml'),
    'services:\n  web:\n    image: busybox\n    environment:\n      A: ${GOOD:-x}\n',
  )
  writeFileSync(join(work, 'template.txt'), 'good=${GOOD}\n')
})
afterAll(async () => {
  await vault?.stop()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})
beforeEach(() => {
  rmSync(pwned, { recursive: true, force: true })
  mkdirSync(pwned)
  rmSync(join(work, 'out'), { recursive: true, force: true })
  mkdirSync(join(work, 'out'))
})

const env = () => ({
  ...home.env,
  PATH: `${join(work, 'bin')}:${process.env.PATH}`,
  VAULT_DOMAIN: vault.url,
  VAULT_PROJECT_ID: 'p',
  VAULT_CLIENT_ID: 'c',
  VAULT_CLIENT_SECRET: 's',
})

/** The properties every row checks: refused with exit 8, nothing ran, nothing written, terminal safe. */
function expectRefused(result: CliResult, name: string): void {
  expect(result.exitCode, result.stderr).toBe(8)
  expect(result.stderr).toMatch(/not a secret name/)
  expect(readdirSync(pwned), 'a command hidden in the name ran').toEqual([])
  expect(readdirSync(join(work, 'out')), 'a file was written').toEqual([])
  expect(rawControl.exec(result.stdout + result.stderr), JSON.stringify(result.stderr)).toBeNull()
  expect(result.stdout).toBe('')
  // the planted text never appears raw (a newline or CR in it cannot forge a line)
  if (/[\n\r]/.test(name))
    expect(result.stderr.split('\n').some((line) => /^(TOUCHED|FORGED)/.test(line))).toBe(false)
}

/**
 * `vault ARGS` from the work directory, as the user would type it: in this process, but `vault run`
 * (it starts the child whose marker says whether anything ran) in a process of its own.
 */
const vaultIn = (args: string[]) => runVault(args, { env: env(), cwd: work })

/** A child command of vault run that leaves a marker when it starts. */
const nodeChild = [
  process.execPath,
  '-e',
  `require('fs').writeFileSync(${JSON.stringify(touched('child'))}, '')`,
]

const commands: [string, string[]][] = [
  ['run with a node child', ['run', '--env', 'dev', '--', ...nodeChild]],
  ['run with compose', ['run', '--env', 'dev', '--', 'docker-compose', 'up']],
  ['export --format dotenv', ['export', '--env', 'dev', '--format', 'dotenv']],
  ['export --format json', ['export', '--env', 'dev', '--format', 'json']],
  ['export --format yaml', ['export', '--env', 'dev', '--format', 'yaml']],
  ['export --format shell', ['export', '--env', 'dev', '--format', 'shell']],
  ['export -o out/.env', ['export', '--env', 'dev', '-o', 'out/.env']],
  ['render', ['render', '--env', 'dev', '-f', 'compose.yaml']],
  ['inject -o out/file', ['inject', '--env', 'dev', '-i', 'template.txt', '-o', 'out/file']],
  ['secrets list', ['secrets', 'list', '--env', 'dev']],
  ['secrets list --json', ['secrets', 'list', '--env', 'dev', '--json']],
]

describe.each(hostileNames)('a secret named with %s', (_attack, name) => {
  it.each(commands)(
    '%s refuses the answer (exit 8) and runs, writes and shows nothing of it',
    async (_command, args) => {
      vault.script({ secrets: namedSecrets('GOOD', name) })
      const result = await vaultIn(args)
      if (args.includes('--json')) {
        // --json reports the failure as JSON on stdout; the rest holds
        expect(rawControl.exec(result.stdout)).toBeNull()
        const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } }
        expect(error.code).toBe('ERR_VAULT_ANSWER')
        return expectRefused({ ...result, stdout: '', stderr: error.message }, name)
      }
      expectRefused(result, name)
    },
  )

  it('eval "$(vault export --format shell)" runs nothing hidden in the name', async () => {
    vault.script({ secrets: namedSecrets('GOOD', name) })
    // export runs in this process; the shell evaluates what it printed, as `eval "$(vault export ...)"` would
    const exported = await vaultIn(['export', '--env', 'dev', '--format', 'shell'])
    const shell = await execa('sh', ['-c', 'eval "$EXPORTED"'], {
      env: { ...env(), EXPORTED: exported.stdout },
      extendEnv: false,
      cwd: work,
      reject: false,
    })
    expect(readdirSync(pwned)).toEqual([])
    expect(
      rawControl.exec(exported.stdout + exported.stderr + String(shell.stdout) + String(shell.stderr)),
    ).toBeNull()
  })

  it('run --fallback-only refuses an offline copy sealed earlier that holds the name', async () => {
    const copyEnv = { ...process.env, ...home.env }
    await writeCopy(
      {
        identity: { domain: vault.url, project: 'p', environment: 'dev' },
        savedAt: Date.now(),
        secrets: [
          { name: 'GOOD', value: 'v' },
          { name, value: 'v' },
        ],
      },
      await ensureFallbackKey(copyEnv),
      copyEnv,
    )
    const result = await vaultIn(['run', '--env', 'dev', '--fallback-only', '--', ...nodeChild])
    expect(result.stderr).toMatch(/offline copy/)
    expectRefused(result, name)
  })
})

describe('the change feed names a secret outside the rule', () => {
  const badChange = (name: string) =>
    ['secret', { name, version: 2, change: 'updated', at: '2026-01-01T00:00:00Z' }] as [string, unknown]

  it.each(hostileNames)(
    'run --watch: %s ends the watch, shown escaped, and nothing hidden runs',
    async (_attack, name) => {
      vault.script({ secrets: namedSecrets('GOOD'), events: feed([badChange(name)]) })
      const watched = startWatching(
        env(),
        ['run', '--env', 'dev', '--watch', '--', process.execPath, '-e', 'setTimeout(() => {}, 20000)'],
        work,
      )
      try {
        await watched.waitFor(/not a secret name/, 20_000)
        expect(watched.stdout() + watched.stderr()).not.toMatch(rawControl)
        expect(readdirSync(pwned)).toEqual([])
      } finally {
        watched.child.kill('SIGKILL')
        await watched.exited
      }
    },
  )

  it.each(hostileNames)(
    'inject --watch: %s ends the watch; the file holds only the checked names',
    async (_attack, name) => {
      vault.script({ secrets: namedSecrets('GOOD'), events: feed([badChange(name)]) })
      const watched = startWatching(
        env(),
        ['inject', '--env', 'dev', '--watch', '-i', 'template.txt', '-o', 'out/file'],
        work,
      )
      try {
        await watched.waitFor(/not a secret name/, 20_000)
        expect(watched.stdout() + watched.stderr()).not.toMatch(rawControl)
        expect(readdirSync(pwned)).toEqual([])
      } finally {
        watched.child.kill('SIGKILL')
        await watched.exited
      }
    },
  )

  it('a feed event that is not JSON, or not an object, ends the watch with a clear line', async () => {
    for (const data of ['<html>', '[1,2]', '{"name":"A","version":"x"}']) {
      vault.script({ secrets: namedSecrets('GOOD'), events: feed([['secret', data]]) })
      const watched = startWatching(
        env(),
        ['run', '--env', 'dev', '--watch', '--', process.execPath, '-e', 'setTimeout(() => {}, 20000)'],
        work,
      )
      try {
        await watched.waitFor(/refusing the vault's answer to GET \/api\/v1\/events/, 20_000)
        expect(watched.stderr()).not.toMatch(/TypeError|SyntaxError/)
      } finally {
        watched.child.kill('SIGKILL')
        await watched.exited
      }
    }
  })
})

describe('the names a vault may send still work', () => {
  it('export --format shell of GOOD and A_1 evaluates back to their values', async () => {
    vault.script({ secrets: json({ secrets: [secretRow('GOOD', "it's"), secretRow('A_1', '$(x)')] }) })
    const exported = await vaultIn(['export', '--env', 'dev', '--format', 'shell'])
    expect(exported.exitCode, exported.stderr).toBe(0)
    const shell = await execa('sh', ['-c', `eval "$EXPORTED"; printf '%s|%s' "$GOOD" "$A_1"`], {
      env: { ...env(), EXPORTED: exported.stdout },
      extendEnv: false,
      cwd: work,
    })
    expect(shell.stdout).toBe("it's|$(x)")
  })
})
