import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { executableOnPath } from '../../../src/process/executable-path.js'

const root = mkdtempSync(join(tmpdir(), 'executable-path-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function directory(name: string, files: Record<string, number> = {}): string {
  const path = join(root, name)
  mkdirSync(path)
  for (const [file, mode] of Object.entries(files)) {
    writeFileSync(join(path, file), '#!/bin/sh\n')
    chmodSync(join(path, file), mode)
  }
  return path
}

describe('executableOnPath', () => {
  const plain = directory('plain', { tool: 0o644 })
  const first = directory('first', { tool: 0o755 })
  const second = directory('second', { tool: 0o755 })
  const withDirectory = directory('with-directory')
  mkdirSync(join(withDirectory, 'tool'))

  it('finds the first executable file of that name, in PATH order', () => {
    expect(executableOnPath('tool', { PATH: [plain, withDirectory, first, second].join(':') })).toBe(
      join(first, 'tool'),
    )
  })

  it('passes over a file that is not executable and a directory of that name', () => {
    expect(executableOnPath('tool', { PATH: [plain, withDirectory].join(':') })).toBeUndefined()
  })

  it('never looks in the working directory for an empty PATH entry', () => {
    const cwd = process.cwd()
    process.chdir(first)
    try {
      expect(executableOnPath('tool', { PATH: `:${plain}:` })).toBeUndefined()
    } finally {
      process.chdir(cwd)
    }
  })

  it('finds nothing without PATH', () => {
    expect(executableOnPath('tool', {})).toBeUndefined()
  })
})
