/**
 * Compose projects whose files point somewhere hostile, run through the built CLI (`vault render`
 * and `--check`). Each case names the attack and checks the property that matters: a clear input
 * error (exit 2, `Error: file...`), no stack trace, nothing leaked, and time and memory bounded
 * however large or endless the thing pointed at is.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadComposeProject } from '../../../src/compose/load.js'
import { runMeasured } from '../../helpers/measured-cli.js'

const work = mkdtempSync(join(tmpdir(), 'vault-hostile-compose-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const bounded = { peak: 200 * 1024 * 1024, ms: 15_000 }

/** A project directory holding `files` (name -> text); returns its path. */
function project(name: string, files: Record<string, string>): string {
  const directory = join(work, name)
  mkdirSync(directory, { recursive: true })
  for (const [file, text] of Object.entries(files)) writeFileSync(join(directory, file), text)
  return directory
}

const web = 'services:\n  web:\n    image: nginx\n'

async function render(directory: string, extra: string[] = []) {
  const run = await runMeasured(['render', '-f', join(directory, 'compose.yaml'), ...extra], {})
  expect(run.stderr).not.toMatch(/\n\s+at /)
  expect(run.peak).toBeLessThan(bounded.peak)
  expect(run.ms).toBeLessThan(bounded.ms)
  return run
}

describe('files that are not regular files, or are endless', () => {
  const fifo = join(work, 'nobody-writes')
  execFileSync('mkfifo', [fifo])
  const sparse = join(work, 'sparse-1g')
  writeFileSync(sparse, '')
  truncateSync(sparse, 1024 ** 3)

  it.each([
    ['include of a FIFO nobody writes to (open blocks for ever)', `include:\n  - ${fifo}\n${web}`, 'a pipe'],
    [
      'include of /dev/zero (endless: memory grew past 3 GB)',
      `include:\n  - /dev/zero\n${web}`,
      'a character device',
    ],
    ['include of a directory', `include:\n  - ${work}\n${web}`, 'a directory'],
    ['include of a 1 GB sparse file', `include:\n  - ${sparse}\n${web}`, 'larger than 16 MiB'],
    ['env_file of /dev/zero', `${web}    env_file: /dev/zero\n`, 'a character device'],
    ['env_file of a FIFO', `${web}    env_file: ${fifo}\n`, 'a pipe'],
    [
      'include env_file of /dev/zero',
      `include:\n  - path: inc.yaml\n    env_file: /dev/zero\n${web}`,
      'a character device',
    ],
    [
      'extends file of /dev/zero',
      `${web}  api:\n    extends:\n      file: /dev/zero\n      service: web\n`,
      'a character device',
    ],
  ])('%s: exit 2, says what the file is', async (name, text, says) => {
    const directory = project(name.replace(/\W+/g, '-'), {
      'compose.yaml': text,
      'inc.yaml': 'services:\n  inc:\n    image: nginx\n',
    })
    for (const extra of [[], ['--check']]) {
      const run = await render(directory, extra)
      expect(run.exitCode).toBe(2)
      expect(run.stderr).toMatch(/^Error: \//)
      expect(run.stderr).toContain(says)
    }
  })

  it('--env-file /dev/zero, named by the user: refused after 16 MiB', async () => {
    const directory = project('env-file-flag', { 'compose.yaml': web })
    const run = await render(directory, ['--env-file', '/dev/zero'])
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain('/dev/zero: env file is larger than 16 MiB')
  })

  it("env_file: /proc/self/environ: exit 2, vault's own environment never printed", async () => {
    const canary = 'canary-proc-environ-5e1'
    const directory = project('proc-environ', { 'compose.yaml': `${web}    env_file: /proc/self/environ\n` })
    for (const extra of [[], ['--check']]) {
      const run = await runMeasured(['render', '-f', join(directory, 'compose.yaml'), ...extra], {
        VAULT_CLIENT_SECRET: canary,
      })
      expect(run.exitCode).toBe(2)
      expect(run.stderr).toContain('an env file holds no NUL byte')
      expect(`${run.stdout}${run.stderr}`).not.toContain(canary)
    }
  })

  it('env_file: /dev/null is still read (as empty)', async () => {
    const directory = project('dev-null', { 'compose.yaml': `${web}    env_file: /dev/null\n` })
    const run = await render(directory)
    expect(run.exitCode).toBe(0)
  })

  it('a pipe the user names with -f (process substitution) is still read', async () => {
    const named = join(work, 'named-pipe')
    execFileSync('mkfifo', [named])
    const writer = spawn('sh', ['-c', `printf '${web}' > ${named}`])
    const loaded = loadComposeProject({ files: [named], cwd: work, environment: {} })
    writer.kill()
    expect(Object.keys(loaded.model.services as object)).toEqual(['web'])
  })
})

/** `${A0:-${A1:-...${An:-x}...}}`: `levels` references, each the default of the one before. */
function nestedDefaults(levels: number): string {
  return `${Array.from({ length: levels }, (_, i) => `\${A${i}:-`).join('')}x${'}'.repeat(levels)}`
}

describe('references nested thousands deep', () => {
  it.each([
    // before: exit 1, "Maximum call stack size exceeded" from 5,000 levels; 8 s at 50,000 (quadratic)
    ['a compose value, 5,000 levels', 5_000, 'compose'],
    ['a compose value, 50,000 levels (540 KB)', 50_000, 'compose'],
    ['a .env value, 5,000 levels', 5_000, 'env'],
  ])('%s: exit 2 naming the file, bounded', async (name, levels, where) => {
    const template = nestedDefaults(levels)
    const directory = project(name.replace(/\W+/g, '-'), {
      'compose.yaml': `${web}    environment:\n      X: "${where === 'compose' ? template : 'ok'}"\n`,
      '.env': where === 'env' ? `X=${template}\n` : '',
    })
    for (const extra of [[], ['--check']]) {
      const run = await render(directory, extra)
      // --check lists a compose file's problems (exit 10); a bad project env file stops the load
      const listed = extra.length > 0 && where === 'compose'
      expect(run.exitCode).toBe(listed ? 10 : 2)
      const output = listed ? run.stdout : run.stderr
      // an env file's message leaves the value out (it may be a secret)
      expect(output).toContain(
        where === 'compose' ? 'nested more than 100' : 'Invalid template in the value of X',
      )
      expect(output).toContain(where === 'compose' ? 'compose.yaml:5' : '.env:1')
    }
  })

  it('100 levels are still substituted', async () => {
    const directory = project('nested-100', {
      'compose.yaml': `${web}    environment:\n      X: "${nestedDefaults(100)}"\n`,
    })
    const run = await render(directory)
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain('X: x')
  })
})

/** Services s0..s`length`, each extending the next; the last has the image. */
function extendsChain(length: number, order: 'first to last' | 'last to first' = 'first to last'): string {
  const links = Array.from(
    { length },
    (_, i) => `  s${i}:\n    extends: s${i + 1}\n    labels:\n      l${i}: v\n`,
  )
  const last = `  s${length}:\n    image: nginx\n`
  if (order === 'last to first') return `services:\n${last}${links.reverse().join('')}`
  return `services:\n${links.join('')}${last}`
}

describe('extends chains thousands long', () => {
  // before: 3,000 links (110 KB) took 280 MB (every service kept its whole chain), 4,000 ended
  // in exit 1, "Maximum call stack size exceeded"
  it.each([
    [3_000, 'first to last'],
    [20_000, 'first to last'],
    // each base is resolved before the service extending it: no deep recursion, same chains
    [3_000, 'last to first'],
  ] as const)('%i links listed %s: exit 2 naming the service, bounded', async (length, order) => {
    const directory = project(`extends-${length}-${order.replace(/ /g, '-')}`, {
      'compose.yaml': extendsChain(length, order),
    })
    for (const extra of [[], ['--check']]) {
      const run = await render(directory, extra)
      expect(run.exitCode).toBe(2)
      expect(run.stderr).toMatch(
        /compose\.yaml:\d+: service "s\d+" extends a chain of more than 100 services/,
      )
      expect(run.stdout).toBe('')
    }
  })

  it('100 links still resolve', async () => {
    const directory = project('extends-100', { 'compose.yaml': extendsChain(100) })
    const run = await render(directory)
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain('l99: v')
  })
})

describe('includes that repeat one another', () => {
  /** f0..f`levels`: each includes the next twice (a diamond), so f`k` is loaded 2^k times. */
  function diamond(levels: number): Record<string, string> {
    const files: Record<string, string> = {}
    for (let i = 0; i <= levels; i++) {
      const own = `services:\n  s${i}:\n    image: nginx\n`
      const next = `f${i + 1}.yaml`
      files[i === 0 ? 'compose.yaml' : `f${i}.yaml`] =
        i < levels ? `include:\n  - ${next}\n  - path: ${next}\n    project_directory: .\n${own}` : own
    }
    return files
  }

  // before: 16 levels (17 files, 1.7 KB) took 6.1 s, each level doubling it
  it('30 levels of a diamond (2 KB): exit 2 naming the file, bounded', async () => {
    const directory = project('include-diamond', diamond(30))
    for (const extra of [[], ['--check']]) {
      const run = await render(directory, extra)
      expect(run.exitCode).toBe(2)
      expect(run.stderr).toMatch(/f\d+\.yaml is included more than 100 times/)
    }
  })

  it('6 levels (f6 included 64 times) still load', async () => {
    const run = await render(project('include-diamond-6', diamond(6)))
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain('s6:')
  })
})
