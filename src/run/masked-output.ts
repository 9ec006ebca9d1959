/**
 * The stream plumbing of masked output: from the child's pipe through an OutputMasker to the CLI's
 * own stdout or stderr, and the end of the copy when the child exits.
 */
import { OutputMasker } from './output-mask.js'

/** After this long without output, bytes held back that cannot begin a value are shown. */
const idleReleaseMs = 20

/**
 * Copies `source` (a child's pipe) through a masker to `target` without ending `target`, honouring
 * back-pressure; output that pauses is shown without waiting for more. Resolves when the source
 * ends or is destroyed; a closed target (EPIPE) stops the copy and closes the child's pipe, as a
 * direct pipe would.
 */
export function pipeMasked(
  source: NodeJS.ReadableStream & { destroy(): void },
  target: NodeJS.WritableStream,
  values: string[],
): Promise<void> {
  const masker = new OutputMasker(values)
  return new Promise((resolve) => {
    let done = false
    const resume = () => source.resume()
    const idle = setTimeout(() => {
      const released = masker.release()
      if (released.length > 0) target.write(released)
    }, idleReleaseMs)
    idle.unref()
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(idle)
      source.off('data', onData)
      target.off('drain', resume)
      resolve()
    }
    const onData = (chunk: Buffer) => {
      idle.refresh()
      let flowing = true
      for (const piece of masker.pushPieces(chunk)) flowing = target.write(piece)
      if (!flowing) {
        source.pause()
        target.once('drain', resume)
      }
    }
    source.on('data', onData)
    source.once('end', () => {
      const rest = masker.end()
      if (rest.length > 0) target.write(rest)
      finish()
    })
    source.once('close', () => {
      if (done) return
      const rest = masker.cut()
      if (rest.length > 0) target.write(rest)
      finish()
    })
    source.once('error', finish)
    target.on('error', () => {
      source.destroy()
      finish()
    })
  })
}

/** How long copies may go on after the child exits (a background grandchild may hold the pipe). */
const settleGraceMs = 1000

/** A child's pipe and the CLI stream it is copied to. */
export type StreamPair = readonly [NodeJS.ReadableStream & { destroy(): void }, NodeJS.WritableStream]

/**
 * Waits for the copies to finish. When the child has exited but something still holds its pipe open
 * (the copy is idle, not waiting for a slow reader) for the grace period, stops reading: what was held
 * back is dropped, never shown unmasked.
 */
export async function settleCopies(copies: Promise<void>[], pairs: StreamPair[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const grace = new Promise<void>((resolve) => {
    const check = () => {
      if (pairs.some(([, target]) => (target as { writableNeedDrain?: boolean }).writableNeedDrain)) {
        timer = setTimeout(check, settleGraceMs)
        return
      }
      for (const [source] of pairs) source.destroy()
      resolve()
    }
    timer = setTimeout(check, settleGraceMs)
  })
  try {
    await Promise.race([Promise.all(copies), grace])
  } finally {
    clearTimeout(timer)
  }
}
