import { describe, expect, it } from 'vitest'
import { BatchParser, parseDiffTree, type BlobVisitor } from '../../../src/process/git-objects.js'

const zero = '0'.repeat(40)
const sha = (digit: string) => digit.repeat(40)

describe('git objects', () => {
  it('diff-tree -z output: each added or changed blob with the commit that introduced it; deletions and submodules left out', () => {
    const raw = [
      sha('a'),
      `:000000 100644 ${zero} ${sha('1')} A`,
      '.env',
      `:000000 160000 ${zero} ${sha('2')} A`,
      'vendor/lib',
      sha('b'),
      `:100644 000000 ${sha('1')} ${zero} D`,
      '.env',
      `:100644 100644 ${sha('3')} ${sha('4')} M`,
      'dir/name with\nnewline and :colon',
      '',
    ].join('\0')
    expect(parseDiffTree(Buffer.from(raw))).toEqual([
      { commit: sha('a'), path: '.env', blob: sha('1') },
      { commit: sha('b'), path: 'dir/name with\nnewline and :colon', blob: sha('4') },
    ])
  })

  it.each([[1], [3], [7], [1000]])(
    'cat-file --batch output split into chunks of %i bytes gives each blob whole',
    (size) => {
      const stream = Buffer.concat([
        Buffer.from(`${sha('1')} blob 11\nhello\nworld\n`),
        Buffer.from(`${sha('2')} missing\n`),
        Buffer.from(`${sha('3')} blob 0\n\n`),
        Buffer.from(`${sha('4')} blob 3\n\n\n\n\n`),
      ])
      const blobs: Array<{ blob: string; text: string }> = []
      let current: { blob: string; parts: Buffer[] } | undefined
      const visitor: BlobVisitor = {
        start: (blob) => (current = { blob, parts: [] }),
        chunk: (bytes) => current!.parts.push(Buffer.from(bytes)),
        end: () => blobs.push({ blob: current!.blob, text: Buffer.concat(current!.parts).toString() }),
      }
      const parser = new BatchParser(visitor)
      for (let at = 0; at < stream.length; at += size) parser.push(stream.subarray(at, at + size))
      expect(blobs).toEqual([
        { blob: sha('1'), text: 'hello\nworld' },
        { blob: sha('3'), text: '' },
        { blob: sha('4'), text: '\n\n\n' },
      ])
      expect(parser.done(4)).toBe(true)
    },
  )
})
