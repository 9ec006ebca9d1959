import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { replaceFileAtomically, writeFileAtomic600 } from '../../../src/fs/atomic-file.js'

let work: string
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'vault-atomic-'))
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

describe('writeFileAtomic600', () => {
  it('creates the file with mode 600 and leaves nothing else behind', async () => {
    const file = join(work, 'out.env')
    await writeFileAtomic600(file, 'A=1\n')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toBe('A=1\n')
    expect(readdirSync(work)).toEqual(['out.env'])
  })

  it('replaces a world-readable file with a mode-600 one', async () => {
    const file = join(work, 'loose.env')
    writeFileSync(file, 'old', { mode: 0o644 })
    await writeFileAtomic600(file, 'new')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toBe('new')
  })
})

describe('replaceFileAtomically', () => {
  it('hands the producer an existing mode-600 temporary beside the target', async () => {
    const file = join(work, 'archive.gz')
    let seen: { path: string; mode: number } | undefined
    await replaceFileAtomically(file, async (temporary) => {
      seen = { path: temporary, mode: statSync(temporary).mode & 0o777 }
      await writeFile(temporary, 'content')
    })
    expect(seen?.mode).toBe(0o600)
    expect(seen?.path.startsWith(join(work, '.archive.gz.'))).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe('content')
  })

  it('leaves the target untouched and removes the temporary when the producer fails', async () => {
    const file = join(work, 'keep.env')
    writeFileSync(file, 'original')
    const failure = replaceFileAtomically(file, async (temporary) => {
      await writeFile(temporary, 'half')
      throw new Error('disk full')
    })
    await expect(failure).rejects.toThrow('disk full')
    expect(readFileSync(file, 'utf8')).toBe('original')
    expect(readdirSync(work)).toEqual(['keep.env'])
  })
})
