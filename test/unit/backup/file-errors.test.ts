import { describe, expect, it } from 'vitest'
import { fileReadError, fileWriteError } from '../../../src/backup/file-errors.js'

const errno = (code: string) => Object.assign(new Error(`${code}: raw message`), { code })

describe('backup helpers: fileWriteError and fileReadError', () => {
  it.each([
    [errno('ENOSPC'), /^no space left on the device while writing \/x; nothing was changed$/, 'ERR_IO'],
    [new Error('database or disk is full'), /^no space left/, 'ERR_IO'],
    [errno('EACCES'), /^cannot write \/x: permission denied$/, 'ERR_USAGE'],
    [errno('ENOENT'), /^cannot write \/x: the directory does not exist$/, 'ERR_NOT_FOUND'],
  ])('turns a write failure into one line (%s)', (error, message, code) => {
    const mapped = fileWriteError(error, '/x')
    expect(mapped.message).toMatch(message)
    expect(mapped.code).toBe(code)
  })

  it.each([
    [errno('ENOENT'), /^archive \/x does not exist$/],
    [errno('EISDIR'), /is a directory/],
  ])('turns a read failure into one line (%s)', (error, message) => {
    expect(fileReadError(error, '/x').message).toMatch(message)
  })
})
