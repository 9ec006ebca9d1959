import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
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
  it('hands the producer the descriptor of an exclusive mode-600 temporary beside the target', async () => {
    const file = join(work, 'archive.gz')
    let seen: { names: string[]; mode: number } | undefined
    await replaceFileAtomically(file, async (handle) => {
      seen = { names: readdirSync(work), mode: (await handle.stat()).mode & 0o777 }
      await handle.writeFile('content')
    })
    expect(seen?.mode).toBe(0o600)
    expect(seen?.names).toHaveLength(1)
    expect(seen?.names[0]).toMatch(/^\.archive\.gz\.[0-9a-f]{12}\.partial$/)
    expect(readFileSync(file, 'utf8')).toBe('content')
  })

  it('never writes through a symlink put in place of the temporary while it is produced', async () => {
    const file = join(work, 'out.env')
    const loot = join(work, 'loot')
    writeFileSync(loot, '')
    chmodSync(loot, 0o666)
    await replaceFileAtomically(file, async (handle) => {
      const [temporary] = readdirSync(work).filter((name) => name.endsWith('.partial'))
      rmSync(join(work, temporary!))
      symlinkSync(loot, join(work, temporary!))
      await handle.writeFile('password=canary-7f1')
    })
    expect(readFileSync(loot, 'utf8')).toBe('')
    expect(statSync(loot).mode & 0o777).toBe(0o666)
  })

  it('leaves the target untouched and removes the temporary when the producer fails', async () => {
    const file = join(work, 'keep.env')
    writeFileSync(file, 'original')
    const failure = replaceFileAtomically(file, async (handle) => {
      await handle.writeFile('half')
      throw new Error('disk full')
    })
    await expect(failure).rejects.toThrow('disk full')
    expect(readFileSync(file, 'utf8')).toBe('original')
    expect(readdirSync(work)).toEqual(['keep.env'])
  })
})
