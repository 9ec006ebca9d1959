/**
 * A server setting read from a file others may have planted: only a regular file that no group or other
 * can write, at most 64 KiB, non-empty. Errors name the variable and the path, never the content (a
 * canary value proves it); a FIFO at the path is refused instead of blocking the start.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { NotConfiguredError } from '../../../src/errors.js'
import { readSettingFile } from '../../../src/server/setting-file.js'

const dir = mkdtempSync(join(tmpdir(), 'setting-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const canary = 'CANARY-7f3a9c1e-not-to-be-printed'

function file(name: string, content: string | Buffer, mode = 0o600): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  chmodSync(path, mode)
  return path
}

function refusal(variable: string, path: string): NotConfiguredError {
  try {
    readSettingFile(variable, path)
  } catch (error) {
    expect(error).toBeInstanceOf(NotConfiguredError)
    const text = `${(error as Error).message} ${(error as NotConfiguredError).hint ?? ''}`
    expect(text).not.toContain(canary)
    expect(text).toContain(variable)
    return error as NotConfiguredError
  }
  throw new Error(`${path} was accepted`)
}

describe('readSettingFile', () => {
  it('reads the value and drops the trailing line breaks only', () => {
    expect(readSettingFile('V_FILE', file('crlf', ` ${canary} \r\n\n`))).toBe(` ${canary} `)
    expect(readSettingFile('V_FILE', file('inner', 'a\nb\n', 0o400))).toBe('a\nb')
  })

  it.each([0o620, 0o602, 0o666, 0o660])('refuses a file of mode %o (group or others may write)', (mode) => {
    const path = file(`mode-${mode.toString(8)}`, canary, mode)
    const error = refusal('VAULT_ENCRYPTION_KEY_FILE', path)
    expect(error.message).toMatch(/writable by its group or others/)
    expect(error.hint).toContain('chmod 600')
  })

  it('quotes a hostile path in the chmod hint so that pasting it runs nothing', () => {
    const path = file("x'; touch pwned; '", canary, 0o666)
    const hint = refusal('V_FILE', path).hint!
    const word = hint.replace(/^chmod 600 /, '').replace(/ \(or 400\)$/, '')
    const out = execFileSync('/bin/sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' })
    expect(out).toBe(path)
  })

  it('refuses a directory, a missing file and an empty one', () => {
    const sub = join(dir, 'sub')
    mkdirSync(sub)
    expect(refusal('V_FILE', sub).message).toMatch(/not a regular file/)
    expect(refusal('V_FILE', join(dir, 'missing')).message).toMatch(/cannot read .*ENOENT/)
    expect(refusal('V_FILE', file('empty', '\n\r\n')).message).toMatch(/is empty/)
  })

  it('refuses a FIFO at once instead of waiting for a writer', () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', ['-m', '600', fifo])
    const started = performance.now()
    expect(refusal('V_FILE', fifo).message).toMatch(/not a regular file/)
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('reads 64 KiB and refuses one byte more', () => {
    const limit = 64 * 1024
    expect(readSettingFile('V_FILE', file('max', 'k'.repeat(limit)))).toHaveLength(limit)
    expect(refusal('V_FILE', file('over', canary + 'k'.repeat(limit))).message).toMatch(/larger than 64 KiB/)
  })

  it('follows a symbolic link to a private regular file (systemd credentials are links)', () => {
    const target = file('target', 'value')
    const link = join(dir, 'link')
    symlinkSync(target, link)
    expect(readSettingFile('V_FILE', link)).toBe('value')
  })
})
