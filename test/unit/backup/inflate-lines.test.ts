import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { inflateLines, lineText, type InflateLimits } from '../../../src/backup/inflate-lines.js'
import { IntegrityError } from '../../../src/errors.js'

const dir = mkdtempSync(join(tmpdir(), 'vault-inflate-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const limits: InflateLimits = { maxInflatedBytes: 64 * 1024, maxLineBytes: 1024, maxLines: 100 }

async function linesOf(content: Buffer, name: string): Promise<string[]> {
  const path = join(dir, name)
  writeFileSync(path, content)
  const lines: string[] = []
  for await (const line of inflateLines(path, limits)) lines.push(lineText(line))
  return lines
}

describe('inflating an archive as lines under caps', () => {
  it('yields every line with its newline, across chunk and gzip member boundaries', async () => {
    const text = Array.from({ length: 50 }, (_, i) => `{"n":${i},"pad":"${'é'.repeat(i)}"}\n`).join('')
    const lines = await linesOf(
      Buffer.concat([gzipSync(text.slice(0, 700)), gzipSync(text.slice(700))]),
      'ok.gz',
    )
    expect(lines.join('')).toBe(text)
    expect(lines).toHaveLength(50)
  })

  it.each([
    [
      'a total beyond the cap',
      () => gzipSync(`${'y'.repeat(999)}\n`.repeat(70)),
      /inflates to more than 0 MiB/,
    ],
    ['a line beyond the cap', () => gzipSync(' '.repeat(2048)), /a line longer than/],
    ['more lines than the cap', () => gzipSync('{}\n'.repeat(101)), /more than 100 lines/],
    ['a truncated stream', () => gzipSync('{}\n'.repeat(50)).subarray(0, 20), /truncated|corrupted/],
    ['bytes that are not gzip', () => Buffer.from('plain text\n'), /corrupted/],
  ])('stops at %s with an IntegrityError', async (_name, content, message) => {
    const error = await linesOf(content(), `bad-${Math.random()}.gz`).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(IntegrityError)
    expect((error as Error).message).toMatch(message)
  })
})
