/**
 * The fast masked copy: the child's output is read into one reused 1 MB buffer (net.Socket's `onread`,
 * so that a read takes all the kernel holds, not Node's 64 KB), masked without a copy of the chunk,
 * and the masked pieces of each read are written to the CLI's own stdout or stderr with one direct
 * `writev`, so that copying 100 MB allocates nothing per chunk. Used with a Unix socket per masked
 * stream (src/masking/socket-output.ts, the default) or a FIFO (src/masking/fifo-output.ts).
 */
import { writevSync } from 'node:fs'
import type { Socket } from 'node:net'
import { trackHeldOutput } from './held-output.js'
import { OutputMasker } from './output-mask.js'

/** After this long without output, bytes held back that cannot begin a value are shown. */
const idleReleaseMs = 20

/** At most this many pieces go to one `writev` (IOV_MAX is 1024 on Linux). */
const maxPieces = 1024

/** How many bytes one read may take. */
export const readBufferSize = 1 << 20

/** A running copy: `stop` closes the source, `done` resolves once all was written. */
export interface FastCopy {
  stop(): void
  /** True while output waits for a slow reader (not for the child). */
  waitingForReader(): boolean
  done: Promise<void>
}

/** The CLI's stdout or stderr: its descriptor for direct writes, its stream for when it is full. */
export interface CopyTarget {
  fd: number
  stream: NodeJS.WritableStream
}

/**
 * Opens the source socket; each read is handed to `onChunk` as a view into the read buffer, which
 * must stay unchanged while `onChunk` returned false (reading pauses until the socket is resumed).
 */
export type SourceOpener = (onChunk: (chunk: Buffer) => boolean) => Socket

/**
 * Copies the source through a masker to `target`, with the guarantees of pipeMasked
 * (src/masking/masked-output.ts): output that pauses is shown, a closed target (EPIPE) closes the source
 * as a direct pipe would, and a copy stopped early masks what it held back. When the target is full
 * (EAGAIN: Node's stdout is a non-blocking pipe) the rest goes through the target's stream, without a
 * copy, and reading pauses (keeping the read buffer unchanged) until it is out.
 */
export function copyMaskedFast(open: SourceOpener, target: CopyTarget, values: string[]): FastCopy {
  const masker = new OutputMasker(values)
  let queued = 0
  let closed = false
  let finish: () => void = () => undefined
  const done = new Promise<void>((resolve) => (finish = resolve))
  const onTargetError = () => source.destroy()
  const finishCopy = () => {
    target.stream.off('error', onTargetError)
    finish()
  }
  const onWritten = (error?: Error | null) => {
    queued--
    if (error) source.destroy()
    if (queued > 0) return
    if (closed) finishCopy()
    else source.resume()
  }
  const queue = (piece: Buffer) => {
    queued++
    target.stream.write(piece, onWritten)
  }
  const deliver = (pieces: Buffer[]): boolean => {
    if (queued > 0) {
      for (const piece of pieces) queue(piece)
      return false
    }
    let rest = pieces.filter((piece) => piece.length > 0)
    try {
      while (rest.length > 0) rest = unwritten(rest, writevSync(target.fd, rest.slice(0, maxPieces)))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
        source.destroy()
        return false
      }
      for (const piece of rest) queue(piece)
    }
    return queued === 0
  }
  const release = () => {
    if (!closed) deliver([masker.release()])
  }
  const idle = setTimeout(release, idleReleaseMs)
  idle.unref()
  const untrack = trackHeldOutput(release)
  target.stream.on('error', onTargetError)
  const source = open((chunk) => {
    idle.refresh()
    return deliver(masker.pushPieces(chunk))
  })
  let ended = false
  source.once('end', () => {
    ended = true
    deliver([masker.end()])
  })
  source.once('close', () => {
    clearTimeout(idle)
    untrack()
    closed = true
    if (!ended) deliver([masker.cut()])
    if (queued === 0) finishCopy()
  })
  source.on('error', () => source.destroy())
  return { stop: () => source.destroy(), waitingForReader: () => queued > 0, done }
}

/** What is left of `pieces` after the first `written` bytes. */
function unwritten(pieces: Buffer[], written: number): Buffer[] {
  let index = 0
  while (index < pieces.length && written >= pieces[index]!.length) written -= pieces[index++]!.length
  if (index === pieces.length) return []
  return [pieces[index]!.subarray(written), ...pieces.slice(index + 1)]
}
