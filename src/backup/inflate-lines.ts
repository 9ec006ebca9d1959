/**
 * Reading an archive as a stream of uncompressed lines with hard caps: the file is inflated in small
 * chunks (never whole in memory), a line longer than `maxLineBytes` or a total beyond
 * `maxInflatedBytes` stops the read at once, so a gzip bomb costs a bounded amount of memory and time.
 * A line is handed out as the chunk pieces it spans (no copy): copying long lines into fresh buffers
 * is what grows a process's memory while it streams.
 */
import { createReadStream } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { createGunzip } from 'node:zlib'
import { IntegrityError } from '../errors.js'
import { paceGarbage } from '../process/gc-pacer.js'

export interface InflateLimits {
  /** Most uncompressed bytes an archive may hold. */
  maxInflatedBytes: number
  /** Longest line (a chunk of rows is at most about 256 KiB). */
  maxLineBytes: number
  /** Most lines (a genuine archive has one per 500 rows; a bomb of empty lines costs time per line). */
  maxLines: number
}

/**
 * The limits `vault restore` and `--verify` apply unless told otherwise (`--max-inflated-mib`): 64 MiB
 * holds about 130,000 audit events and 15,000 secret versions (peak memory of a restore: README,
 * "Backups"; bench/restore-memory.ts).
 */
export const defaultInflateLimits: InflateLimits = {
  maxInflatedBytes: 64 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
  maxLines: 100_000,
}

/** The default limits with another total cap (MiB), for `--max-inflated-mib`. */
export function inflateLimitsOf(maxInflatedMib: number | undefined): InflateLimits {
  return maxInflatedMib === undefined
    ? defaultInflateLimits
    : { ...defaultInflateLimits, maxInflatedBytes: maxInflatedMib * 1024 * 1024 }
}

/** A refusal of an archive that cannot be used; `reason` says why. */
export function unusableArchive(path: string, reason: string): IntegrityError {
  return new IntegrityError(`archive ${path} cannot be used: ${reason}; nothing was changed`, {
    hint: 'use another copy of the backup (vault restore --verify FILE checks one)',
  })
}

/** One line as the pieces of inflated chunks it spans, newline included. */
export type Line = Buffer[]

/** The text of a line (UTF-8), decoded without joining its pieces into one buffer. */
export function lineText(line: Line): string {
  const decoder = new StringDecoder('utf8')
  return line.map((piece) => decoder.write(piece)).join('') + decoder.end()
}

/** The uncompressed lines of the gzip file at `path` (each with its newline), under `limits`. */
export async function* inflateLines(
  path: string,
  limits: InflateLimits = defaultInflateLimits,
): AsyncGenerator<Line> {
  const gunzip = createGunzip({ chunkSize: 16 * 1024 })
  // zlib inflates a whole input chunk before it heeds backpressure, and deflate reaches ~1000:1: small
  // input chunks bound what one chunk can expand to (4 KiB in, at most ~4 MiB out).
  const source = createReadStream(path, { highWaterMark: 4 * 1024 })
  source.on('error', (error) => gunzip.destroy(error))
  source.pipe(gunzip)
  let pending: Buffer[] = []
  let pendingBytes = 0
  let total = 0
  let lines = 0
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length
      paceGarbage(chunk.length)
      if (total > limits.maxInflatedBytes) {
        throw new IntegrityError(
          `archive ${path} cannot be used: it inflates to more than ${mebibytes(limits.maxInflatedBytes)} (a gzip bomb?); nothing was changed`,
          {
            hint: 'if the archive is genuine and that large, raise the cap with --max-inflated-mib (time and disk grow with it)',
          },
        )
      }
      let start = 0
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, end + 1)
        checkLine(pendingBytes + piece.length)
        if (++lines > limits.maxLines) {
          throw unusableArchive(
            path,
            `it holds more than ${limits.maxLines} lines (a genuine archive has one per 500 rows)`,
          )
        }
        pending.push(piece)
        yield pending
        pending = []
        pendingBytes = 0
        start = end + 1
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start))
        pendingBytes += chunk.length - start
        checkLine(pendingBytes)
      }
    }
  } catch (error) {
    if (error instanceof IntegrityError) throw error
    const code = (error as { code?: string }).code
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') throw error
    const message = (error as Error).message
    const reason = /unexpected end/i.test(message) ? 'truncated' : 'corrupted'
    throw unusableArchive(path, `it is ${reason} (gzip: ${message})`)
  } finally {
    source.destroy()
    gunzip.destroy()
  }
  if (pendingBytes > 0) yield pending

  function checkLine(bytes: number) {
    if (bytes > limits.maxLineBytes) {
      throw unusableArchive(path, `it holds a line longer than ${mebibytes(limits.maxLineBytes)}`)
    }
  }
}

function mebibytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`
}
