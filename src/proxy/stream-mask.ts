/**
 * Masking of answers that are streams of bytes (pure): container logs, raw (a TTY container) or in the
 * engine's multiplexed frames (8-byte headers: stream, three zero bytes, a big-endian length). Values
 * are matched on bytes, so a value split across two reads, or across two frames of the same stream, is
 * still masked: the masker holds back only the end of what it was given that could still begin a value
 * (at most the longest value's length minus one), and releases the rest at once, so a followed log
 * keeps flowing line by line. Frames are rewritten with the lengths of what they carry after masking.
 */
import { maskText, minimumMaskedLength } from '../text/mask-text.js'

/** Masks a byte stream piece by piece: what `push` returns may be sent; `end` returns what was held. */
export interface StreamMasker {
  push(chunk: Buffer): Buffer
  end(): Buffer
}

const maskBytes = Buffer.from(maskText, 'utf8')

/** A masker for one byte stream: every occurrence of each value (long enough) becomes the mask text. */
export function createStreamMasker(values: readonly string[]): StreamMasker {
  const byFirstByte = new Map<number, Buffer[]>()
  const sorted = [...new Set(values)]
    .filter((value) => value.length >= minimumMaskedLength)
    .map((value) => Buffer.from(value, 'utf8'))
    .sort((a, b) => b.length - a.length)
  for (const value of sorted) {
    const list = byFirstByte.get(value[0]!) ?? []
    list.push(value)
    byFirstByte.set(value[0]!, list)
  }
  let held: Buffer = Buffer.alloc(0)
  const scan = (data: Buffer, final: boolean): Buffer => {
    const out: Buffer[] = []
    let copied = 0
    let i = 0
    scanning: while (i < data.length) {
      const candidates = byFirstByte.get(data[i]!)
      if (candidates) {
        const left = data.length - i
        for (const value of candidates) {
          if (left < value.length) {
            // The rest could still become this value: hold it (unless the stream has ended).
            if (!final && data.compare(value, 0, left, i, data.length) === 0) break scanning
            continue
          }
          if (data.compare(value, 0, value.length, i, i + value.length) === 0) {
            out.push(data.subarray(copied, i), maskBytes)
            i += value.length
            copied = i
            continue scanning
          }
        }
      }
      i++
    }
    held = i < data.length ? Buffer.from(data.subarray(i)) : Buffer.alloc(0)
    out.push(data.subarray(copied, i))
    return out.length === 1 ? out[0]! : Buffer.concat(out)
  }
  return {
    push: (chunk) =>
      sorted.length === 0 ? chunk : scan(held.length ? Buffer.concat([held, chunk]) : chunk, false),
    end: () => scan(held, true),
  }
}

/** One frame of the engine's multiplexed stream around `payload`, for `stream` (1 stdout, 2 stderr). */
function frame(stream: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8)
  header[0] = stream
  header.writeUInt32BE(payload.length, 4)
  return Buffer.concat([header, payload])
}

/**
 * A masker for the engine's multiplexed stream: each stream (stdin, stdout, stderr) is masked as one
 * byte stream across its frames, and what is released is sent in new frames of the right length.
 */
export function createFrameMasker(values: readonly string[]): StreamMasker {
  const streams = new Map<number, StreamMasker>()
  const header = Buffer.alloc(8)
  let headerLength = 0
  let payloadLeft = 0
  let stream = 0
  const maskerOf = (id: number) => {
    let masker = streams.get(id)
    if (!masker) streams.set(id, (masker = createStreamMasker(values)))
    return masker
  }
  return {
    push(chunk) {
      const out: Buffer[] = []
      let i = 0
      while (i < chunk.length) {
        if (payloadLeft === 0) {
          const take = Math.min(8 - headerLength, chunk.length - i)
          chunk.copy(header, headerLength, i, i + take)
          headerLength += take
          i += take
          if (headerLength < 8) break
          headerLength = 0
          stream = header[0]!
          payloadLeft = header.readUInt32BE(4)
          continue
        }
        const take = Math.min(payloadLeft, chunk.length - i)
        const released = maskerOf(stream).push(chunk.subarray(i, i + take))
        if (released.length > 0) out.push(frame(stream, released))
        payloadLeft -= take
        i += take
      }
      return Buffer.concat(out)
    },
    end() {
      const out: Buffer[] = []
      for (const [id, masker] of streams) {
        const rest = masker.end()
        if (rest.length > 0) out.push(frame(id, rest))
      }
      return Buffer.concat(out)
    },
  }
}
