/**
 * The stream plumbing of masked output: from the child's pipe through an OutputMasker to the CLI's
 * own stdout or stderr, and the end of the copy when the child exits.
 */
import { OutputMasker } from './output-mask.js'

/** How long copies may go on after the child exits (a background grandchild may hold the pipe). */
const settleGraceMs = 1000

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

/** One copy as the settling sees it: how to stop reading, and whether it waits for a slow reader. */
export interface CopyHandle {
  stop(): void
  waitingForReader(): boolean
}

/** The handle of a pipeMasked copy from `source` to `target`. */
export function streamCopyHandle(source: { destroy(): void }, target: NodeJS.WritableStream): CopyHandle {
  return {
    stop: () => source.destroy(),
    waitingForReader: () => Boolean((target as { writableNeedDrain?: boolean }).writableNeedDrain),
  }
}

/**
 * Waits for the copies to finish. When the child has exited but something still holds its pipe open
 * (the copy is idle, not waiting for a slow reader) for the grace period, stops reading: what was held
 * back is dropped, never shown unmasked.
 */
export async function settleCopies(copies: Promise<void>[], handles: CopyHandle[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const grace = new Promise<void>((resolve) => {
    const check = () => {
      if (handles.some((handle) => handle.waitingForReader())) {
        timer = setTimeout(check, settleGraceMs)
        return
      }
      for (const handle of handles) handle.stop()
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
