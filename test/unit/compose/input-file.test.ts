/**
 * The text of one input file of a compose load, with the limits a hostile file name needs: a path named
 * inside a compose file must be a regular file (or /dev/null), one the user named may be a pipe or a
 * device, and nothing is read past 16 MiB. Real files, FIFOs and devices of this machine are used.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ComposeFileNotFoundError, ComposeInputError } from '../../../src/compose/errors.js'
import { maxInputBytes, readInputBytes, readInputFile } from '../../../src/compose/input-file.js'

const dir = mkdtempSync(join(tmpdir(), 'input-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function refusal(run: () => unknown): Error {
  try {
    run()
  } catch (error) {
    return error as Error
  }
  throw new Error('read')
}

describe('readInputFile', () => {
  it('reads a regular file, bytes that are not UTF-8 as U+FFFD', () => {
    const path = join(dir, 'compose.yaml')
    writeFileSync(path, Buffer.from([0x61, 0xff, 0x62, 0xc3]))
    expect(readInputFile(path, 'compose file')).toBe('a\ufffdb\ufffd')
  })

  it('reads /dev/null, named or not, as empty', () => {
    expect(readInputFile('/dev/null', 'env file')).toBe('')
  })

  it('refuses a FIFO nobody named at once, without waiting for a writer', () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const error = refusal(() => readInputFile(fifo, 'env file'))
    expect(error).toBeInstanceOf(ComposeInputError)
    expect(error.message).toMatch(/env file is a pipe, not a regular file/)
  })

  it('reads a FIFO the user named (-f <(...))', async () => {
    const fifo = join(dir, 'named-fifo')
    execFileSync('mkfifo', [fifo])
    const writer = spawn('/bin/sh', ['-c', `printf 'services: {}\\n' > '${fifo}'`])
    expect(readInputFile(fifo, 'compose file', { named: true })).toBe('services: {}\n')
    await new Promise((resolve) => writer.on('close', resolve))
  })

  it.each([
    ['/dev/zero', 'a character device'],
    ['/dev/urandom', 'a character device'],
  ])('refuses %s unnamed, and stops a named one at 16 MiB', (device, kind) => {
    expect(refusal(() => readInputFile(device, 'env file')).message).toContain(
      `is ${kind}, not a regular file`,
    )
    const started = performance.now()
    const error = refusal(() => readInputBytes(device, 'env file', { named: true }))
    expect(error).toBeInstanceOf(ComposeInputError)
    expect(error.message).toMatch(/larger than 16 MiB/)
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it.each([
    [maxInputBytes, 'reads'],
    [maxInputBytes + 1, 'refuses'],
  ])('through a named pipe, %i bytes: %s (a pipe has no size up front)', async (bytes, outcome) => {
    const fifo = join(dir, `pipe-${bytes}`)
    execFileSync('mkfifo', [fifo])
    const writer = spawn('/bin/sh', ['-c', `head -c ${bytes} /dev/zero > '${fifo}'`])
    const closed = new Promise((resolve) => writer.on('close', resolve))
    if (outcome === 'reads') expect(readInputBytes(fifo, 'env file', { named: true })).toHaveLength(bytes)
    else
      expect(refusal(() => readInputBytes(fifo, 'env file', { named: true })).message).toMatch(
        /larger than 16 MiB/,
      )
    writer.kill()
    await closed
  })

  it('refuses a sparse file past the limit by its size, before reading it', () => {
    const path = join(dir, 'sparse.env')
    writeFileSync(path, '')
    truncateSync(path, maxInputBytes + 1)
    expect(refusal(() => readInputFile(path, 'env file')).message).toMatch(/larger than 16 MiB/)
    const exact = join(dir, 'exact.env')
    writeFileSync(exact, '')
    truncateSync(exact, maxInputBytes)
    expect(readInputBytes(exact, 'env file')).toHaveLength(maxInputBytes)
  })

  it('refuses a directory even when named', () => {
    const sub = join(dir, 'sub')
    mkdirSync(sub)
    expect(refusal(() => readInputFile(sub, 'compose file', { named: true })).message).toMatch(
      /is a directory/,
    )
  })

  it('says not found, or names a symlink loop', () => {
    const missing = refusal(() => readInputFile(join(dir, 'missing.yaml'), 'compose file'))
    expect(missing).toBeInstanceOf(ComposeFileNotFoundError)
    expect(missing.message).toMatch(/compose file .*missing\.yaml not found/)
    const loop = join(dir, 'loop')
    symlinkSync(loop, loop)
    const error = refusal(() => readInputFile(loop, 'compose file')) as ComposeFileNotFoundError
    expect(error.message).toMatch(/cannot be read \(ELOOP\)/)
    expect(error.hint).toMatch(/points back at itself/)
  })
})
