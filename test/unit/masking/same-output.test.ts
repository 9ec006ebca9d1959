import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { sameOutput } from '../../../src/masking/same-output.js'

describe('sameOutput', () => {
  const dir = mkdtempSync(join(tmpdir(), 'same-output-'))
  const opened: number[] = []
  const open = (path: string) => {
    const fd = openSync(path, 'a')
    opened.push(fd)
    return fd
  }
  afterAll(() => {
    for (const fd of opened) closeSync(fd)
    rmSync(dir, { recursive: true, force: true })
  })

  it('is true for two descriptors of one file, false for two files', () => {
    for (const name of ['a.log', 'b.log']) writeFileSync(join(dir, name), '')
    const a = open(join(dir, 'a.log'))
    expect(sameOutput(a, open(join(dir, 'a.log')))).toBe(true)
    expect(sameOutput(a, open(join(dir, 'b.log')))).toBe(false)
    expect(sameOutput(a, open('/dev/null'))).toBe(false)
  })

  it('is false when a descriptor is not open', () => {
    expect(sameOutput(open('/dev/null'), 987654)).toBe(false)
  })
})
