/**
 * The CLI's private directories and files: made 700, taken when they are this user's own real directory
 * (tightened to 700 / 600), refused when they are a symlink, not a directory or file, writable by others,
 * or (a key file) readable by others. The refusal's `rm -r` hint is checked with the real `sh`.
 */
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { IoError } from '../../../src/errors.js'
import {
  checkPrivateDirectory,
  checkPrivateFileSync,
  ensurePrivateDirectory,
  ensurePrivateDirectorySync,
} from '../../../src/fs/private-directory.js'

const root = mkdtempSync(join(tmpdir(), 'private-directory-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let count = 0
const fresh = (name = 'd') => join(root, `${count++}-${name}`)
const mode = (path: string) => statSync(path).mode & 0o777

function caught(run: () => unknown): IoError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(IoError)
    return error as IoError
  }
  throw new Error('not refused')
}

describe('ensurePrivateDirectory', () => {
  it('makes the directory and its missing parents mode 700', async () => {
    const parent = fresh()
    const directory = join(parent, 'a', 'b')
    await ensurePrivateDirectory(directory, 'the copies')
    expect(mode(directory)).toBe(0o700)
    ensurePrivateDirectorySync(join(parent, 'sync'), 'the copies')
    expect(mode(join(parent, 'sync'))).toBe(0o700)
  })

  it('tightens an own directory that others could read to 700', async () => {
    const directory = fresh()
    mkdirSync(directory, { mode: 0o755 })
    chmodSync(directory, 0o755)
    await ensurePrivateDirectory(directory, 'the copies')
    expect(mode(directory)).toBe(0o700)
  })

  it.each([0o777, 0o770, 0o702])(
    'refuses an own directory of mode %o (others may write into it)',
    async (bits) => {
      const directory = fresh()
      mkdirSync(directory)
      chmodSync(directory, bits)
      await expect(ensurePrivateDirectory(directory, 'the copies')).rejects.toThrow(
        /can be written by other users/,
      )
      expect(() => ensurePrivateDirectorySync(directory, 'the copies')).toThrow(IoError)
      expect(mode(directory)).toBe(bits)
    },
  )

  it('refuses a symlink to a directory, even a private one', async () => {
    const target = fresh()
    mkdirSync(target, { mode: 0o700 })
    const link = fresh('link')
    symlinkSync(target, link)
    await expect(checkPrivateDirectory(link, 'the key')).rejects.toThrow(/is a symlink or not a directory/)
  })

  // only root can give a directory to another user; elsewhere this test shows as skipped
  it.runIf(process.getuid?.() === 0)('refuses a directory of another user (run as root)', async () => {
    const directory = fresh()
    mkdirSync(directory, { mode: 0o700 })
    chownSync(directory, 65534, 65534)
    await expect(ensurePrivateDirectory(directory, 'the copies')).rejects.toThrow(/belongs to uid 65534/)
  })

  it('lets a missing directory pass the check', async () => {
    await expect(checkPrivateDirectory(fresh('missing'), 'the key')).resolves.toBeUndefined()
  })

  it('gives an rm hint that the real sh reads as the one path', async () => {
    const directory = fresh("it's $(touch pwned); x")
    mkdirSync(directory)
    chmodSync(directory, 0o777)
    const error = (await ensurePrivateDirectory(directory, 'the copies').catch(
      (thrown: unknown) => thrown,
    )) as IoError
    const word = error.hint!.replace(/^.*\(rm -r /, '').replace(/\) and run again$/, '')
    expect(execFileSync('/bin/sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8', cwd: root })).toBe(
      directory,
    )
  })
})

describe('checkPrivateFileSync', () => {
  function file(bits: number): string {
    const path = fresh('f')
    writeFileSync(path, 'key')
    chmodSync(path, bits)
    return path
  }

  it('tightens a readable file to 600, but refuses a readable key file', () => {
    const path = file(0o644)
    checkPrivateFileSync(path, 'the database')
    expect(mode(path)).toBe(0o600)
    const key = file(0o640)
    expect(caught(() => checkPrivateFileSync(key, 'the keys', { secret: true })).message).toMatch(
      /can be read by other users \(mode 640\)/,
    )
    checkPrivateFileSync(file(0o600), 'the keys', { secret: true })
  })

  it('refuses a file others may write, a symlink and a directory; lets a missing one pass', () => {
    expect(caught(() => checkPrivateFileSync(file(0o622), 'x')).message).toMatch(
      /can be written by other users/,
    )
    const link = fresh('link')
    symlinkSync(file(0o600), link)
    expect(caught(() => checkPrivateFileSync(link, 'x')).message).toMatch(/symlink or not a regular file/)
    const directory = fresh()
    mkdirSync(directory)
    expect(() => checkPrivateFileSync(directory, 'x')).toThrow(IoError)
    expect(() => checkPrivateFileSync(fresh('missing'), 'x')).not.toThrow()
  })
})
