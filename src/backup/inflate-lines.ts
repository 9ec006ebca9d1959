/**
 * Reading an archive as a stream of uncompressed lines with hard caps: the file is inflated chunk by
 * chunk (never whole in memory), a line longer than `maxLineBytes` or a total beyond
 * `maxInflatedBytes` stops the read at once, so a gzip bomb costs a bounded amount of memory and time.
 */
import { createReadStream } from 'node:fs'
import { createGunzip } from 'node:zlib'
import { IntegrityError } from '../errors.js'

export interface InflateLimits {
  /** Most uncompressed bytes an archive may hold. */
  maxInflatedBytes: number
  /** Longest line (a chunk of rows is at most about 1 MiB). */
  maxLineBytes: number
}

/** The limits `vault restore` and `--verify` apply (see README, "Backups"). */
export const defaultInflateLimits: InflateLimits = {
  maxInflatedBytes: 48 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
}

/** A refusal of an archive that cannot be used; `reason` says why. */
export function unusableArchive(path: string, reason: string): IntegrityError {
  return new IntegrityError(`archive ${path} cannot be used: ${reason}; nothing was changed`, {
    hint: 'use another copy of the backup (vault restore --verify FILE checks one)',
  })
}

/** The uncompressed lines of the gzip file at `path` (each with its newline), under `limits`. */
export async function* inflateLines(
  path: string,
  limits: InflateLimits = defaultInflateLimits,
): AsyncGenerator<Buffer> {
  const gunzip = createGunzip({ chunkSize: 64 * 1024 })
  const source = createReadStream(path)
  source.on('error', (error) => gunzip.destroy(error))
  source.pipe(gunzip)
  let pending: Buffer[] = []
  let pendingBytes = 0
  let total = 0
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length
      if (total > limits.maxInflatedBytes) {
        throw unusableArchive(
          path,
          `it inflates to more than ${mebibytes(limits.maxInflatedBytes)} (a gzip bomb?)`,
        )
      }
      let start = 0
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, end + 1)
        checkLine(pendingBytes + piece.length)
        yield pending.length === 0 ? piece : Buffer.concat([...pending, piece])
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
  if (pendingBytes > 0) yield Buffer.concat(pending)

  function checkLine(bytes: number) {
    if (bytes > limits.maxLineBytes) {
      throw unusableArchive(path, `it holds a line longer than ${mebibytes(limits.maxLineBytes)}`)
    }
  }
}

function mebibytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`
}
