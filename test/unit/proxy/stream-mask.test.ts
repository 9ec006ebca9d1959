/** Masking of byte streams (container logs): raw and in the engine's multiplexed frames, across any split. */
import { describe, expect, it } from 'vitest'
import { createFrameMasker, createStreamMasker } from '../../../src/proxy/stream-mask.js'

const canary = 'canary-logs-7c2e'
const pem = '-----BEGIN KEY-----\nMIIcanary9f\n-----END KEY-----'

function frame(stream: number, text: string | Buffer): Buffer {
  const payload = Buffer.from(text)
  const header = Buffer.alloc(8)
  header[0] = stream
  header.writeUInt32BE(payload.length, 4)
  return Buffer.concat([header, payload])
}

/** Reads frames back: [stream, payload] per frame; throws on a truncated frame. */
function unframe(bytes: Buffer): [number, string][] {
  const frames: [number, string][] = []
  for (let i = 0; i < bytes.length;) {
    const length = bytes.readUInt32BE(i + 4)
    if (i + 8 + length > bytes.length) throw new Error('truncated frame')
    frames.push([bytes[i]!, bytes.subarray(i + 8, i + 8 + length).toString()])
    i += 8 + length
  }
  return frames
}

/** Feeds `input` split at every `step` bytes, returns everything released. */
function feed(masker: ReturnType<typeof createStreamMasker>, input: Buffer, step: number): Buffer {
  const out: Buffer[] = []
  for (let i = 0; i < input.length; i += step) out.push(masker.push(input.subarray(i, i + step)))
  out.push(masker.end())
  return Buffer.concat(out)
}

describe('createStreamMasker', () => {
  const text = Buffer.from(`start ${canary} middle ${pem} end ${canary}${canary}\n`)
  it.each([1, 2, 3, 7, 16, 1000])('masks every value when the stream is split every %i bytes', (step) => {
    const out = feed(createStreamMasker([canary, pem]), text, step).toString()
    expect(out).toBe('start ******** middle ******** end ****************\n')
  })

  it('releases at once what cannot begin a value (a followed log is not held back)', () => {
    const masker = createStreamMasker([canary])
    expect(masker.push(Buffer.from('line one\n')).toString()).toBe('line one\n')
    expect(masker.push(Buffer.from('key: canary-lo')).toString()).toBe('key: ')
    expect(masker.push(Buffer.from('gs-7c2e!\n')).toString()).toBe('********!\n')
    expect(masker.push(Buffer.from('canary-x')).toString()).toBe('canary-x')
  })

  it('gives back a held prefix at the end when it never became a value', () => {
    const masker = createStreamMasker([canary])
    expect(masker.push(Buffer.from('a canary-lo')).toString()).toBe('a ')
    expect(masker.end().toString()).toBe('canary-lo')
  })

  it('prefers the longest value that matches at a place', () => {
    const out = feed(createStreamMasker(['abcd', 'abcdefgh']), Buffer.from('abcdefgh abcdx'), 1)
    expect(out.toString()).toBe('******** ********x')
  })

  it('passes a stream through untouched without values long enough to mask', () => {
    const chunk = Buffer.from('abc')
    expect(createStreamMasker(['abc', '']).push(chunk)).toBe(chunk)
  })
})

describe('createFrameMasker', () => {
  it.each([1, 3, 8, 9, 20, 4096])(
    'masks values split across frames of a stream, lengths rewritten (input split every %i bytes)',
    (step) => {
      const input = Buffer.concat([
        frame(1, `out ${canary.slice(0, 5)}`),
        frame(2, 'err line\n'),
        frame(1, `${canary.slice(5)} done\n`),
        frame(2, `${pem}\n`),
      ])
      const frames = unframe(feed(createFrameMasker([canary, pem]), input, step))
      const byStream = (id: number) =>
        frames
          .filter(([stream]) => stream === id)
          .map(([, text]) => text)
          .join('')
      expect(byStream(1)).toBe('out ******** done\n')
      expect(byStream(2)).toBe('err line\n********\n')
      expect(JSON.stringify(frames)).not.toContain('canary')
    },
  )

  it('a value whose bytes land in frames of two different streams is not one value (nothing to mask)', () => {
    const input = Buffer.concat([frame(1, canary.slice(0, 6)), frame(2, canary.slice(6))])
    const frames = unframe(feed(createFrameMasker([canary]), input, 64))
    // stdout's held start of a possible value comes out at the end, after stderr's frame.
    expect(frames).toEqual([
      [2, canary.slice(6)],
      [1, canary.slice(0, 6)],
    ])
  })

  it('keeps an empty frame out and survives a zero-length frame', () => {
    const input = Buffer.concat([frame(1, ''), frame(1, 'ok\n')])
    expect(unframe(feed(createFrameMasker([canary]), input, 5))).toEqual([[1, 'ok\n']])
  })
})
