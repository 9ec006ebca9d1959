/**
 * Attacks on the file learn mode writes (`--learn FILE`): it becomes the rules an enforcing proxy runs
 * with, so whoever can replace it chooses what the proxy allows. A symbolic link, FIFO or device at FILE
 * is refused at start; a link at its temporary name never makes the proxy write through it (a victim
 * file keeps its bytes); a regular file at FILE is replaced with one of mode 600; a failed write leaves
 * the last whole file; a directory another user can change (owned by them, or writable by group or
 * others without the sticky bit, or such a directory above it) is refused at start. Runs as root in CI:
 * ownership is given with chown.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveRuleSetConfig } from '../../../src/proxy/config.js'
import { defaultGuardSettings } from '../../../src/proxy/guard-settings.js'
import { resolveLearnSettings, startLearnMode } from '../../../src/proxy/learn/learn-mode.js'
import type { ProxyLogger } from '../../../src/proxy/log.js'
import { allRuleSets } from '../../../src/proxy/rule-sets.js'

const quiet: ProxyLogger = { enabled: () => false, log: () => undefined }
const victimText = 'root:x:0:0:victim\n'

function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'learn-file-'))
  chmodSync(dir, 0o700)
  return dir
}

/** Starts and stops learn mode on `file` (through the settings check, as `vault proxy serve` does). */
function learnOnce(file: string) {
  const settings = resolveLearnSettings({ learn: file })!
  const config = resolveRuleSetConfig({ rules: 'GET /nothing' })
  const mode = startLearnMode(
    settings,
    { ruleSets: config, guard: defaultGuardSettings },
    { logger: quiet, loud: quiet },
  )
  const set = allRuleSets(config)[0]!
  const learning = mode.learner.begin({
    ruleSet: set,
    client: 'c',
    method: 'GET',
    path: '/v1.41/containers/json',
  })
  expect(learning.overrule()).toBe(true)
  learning.forwarded()
  mode.stop()
}

describe('learn mode: the learned file', () => {
  // `--learn /dev/null` as root replaced the device with a file of learned rules; `--learn /dev/stdout`
  // the link. Checked here on a FIFO and a link in a private directory (never on the machine's /dev).
  it.each([
    ['a symbolic link', (file: string, victim: string) => symlinkSync(victim, file)],
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file])],
  ])('refuses %s at FILE at start, writing nothing through it or over it', (_name, plant) => {
    const dir = privateDir()
    const victim = join(dir, 'passwd')
    writeFileSync(victim, victimText, { mode: 0o644 })
    const file = join(dir, 'learned.rules')
    plant(file, victim)
    const before = lstatSync(file)
    expect(() => learnOnce(file)).toThrow(/not a regular file/)
    expect(readFileSync(victim, 'utf8')).toBe(victimText)
    expect(lstatSync(file).ino).toBe(before.ino)
    expect(lstatSync(file).mode).toBe(before.mode)
  })

  it('never writes through a symbolic link planted at its temporary name', () => {
    const dir = privateDir()
    const victim = join(dir, 'shadow')
    writeFileSync(victim, victimText, { mode: 0o600 })
    const file = join(dir, 'learned.rules')
    symlinkSync(victim, `${file}.${process.pid}.tmp`)
    learnOnce(file)
    expect(readFileSync(victim, 'utf8')).toBe(victimText)
    expect(lstatSync(file).mode & 0o777).toBe(0o600)
  })

  it('replaces a world-readable file at FILE with one of mode 600 (the old inode, hard-linked, keeps its bytes)', () => {
    const dir = privateDir()
    const file = join(dir, 'learned.rules')
    writeFileSync(file, 'GET .*\n', { mode: 0o666 })
    chmodSync(file, 0o666)
    const other = join(dir, 'hard-link')
    // a hard link to FILE: writing into FILE's inode would change it
    linkSync(file, other)
    learnOnce(file)
    expect(lstatSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).not.toContain('GET .*')
    expect(readFileSync(other, 'utf8')).toBe('GET .*\n')
  })

  it('keeps the last whole file when a write fails', () => {
    const dir = privateDir()
    const file = join(dir, 'learned.rules')
    const settings = resolveLearnSettings({ learn: file })!
    const config = resolveRuleSetConfig({ rules: 'GET /nothing' })
    const errors: string[] = []
    const loud: ProxyLogger = {
      enabled: () => true,
      log: (level, message) => errors.push(`${level} ${message}`),
    }
    const mode = startLearnMode(
      settings,
      { ruleSets: config, guard: defaultGuardSettings },
      { logger: quiet, loud },
    )
    const whole = readFileSync(file, 'utf8')
    // the temporary name taken by a directory: the next write cannot create it
    mkdirSync(`${file}.${process.pid}.tmp`)
    writeFileSync(join(`${file}.${process.pid}.tmp`, 'x'), '')
    mode.stop()
    expect(errors).toContain('error learned rules not written')
    expect(readFileSync(file, 'utf8')).toBe(whole)
  })

  it.each([
    ['writable by others', (dir: string) => chmodSync(dir, 0o777)],
    ['writable by its group', (dir: string) => chmodSync(dir, 0o770)],
    ['owned by another user', (dir: string) => chownSync(dir, 65534, 65534)],
  ])('refuses a directory %s at start, and writes nothing there', (_name, spoil) => {
    const dir = privateDir()
    spoil(dir)
    const file = join(dir, 'learned.rules')
    expect(() => resolveLearnSettings({ learn: file })).toThrow(/another user|other users/)
    expect(existsSync(file)).toBe(false)
  })

  it('refuses a private directory inside one another user can rename (a directory above FILE)', () => {
    const outer = privateDir()
    chmodSync(outer, 0o777)
    const inner = join(outer, 'mine')
    mkdirSync(inner, { mode: 0o700 })
    expect(() => resolveLearnSettings({ learn: join(inner, 'learned.rules') })).toThrow(/other users/)
  })

  it('accepts a private directory under a sticky one (/tmp)', () => {
    const outer = privateDir()
    chmodSync(outer, 0o1777)
    const inner = join(outer, 'mine')
    mkdirSync(inner, { mode: 0o700 })
    expect(resolveLearnSettings({ learn: join(inner, 'learned.rules') })?.file).toBe(
      join(inner, 'learned.rules'),
    )
  })
})
