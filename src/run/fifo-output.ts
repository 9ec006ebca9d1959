/**
 * The fast path of masked output. The child writes into a FIFO (a real pipe, where Node would give it
 * a socketpair), the CLI reads the FIFO into one reused 1 MB buffer (net.Socket's `onread`) and writes
 * the masked pieces to its own stdout or stderr with direct writes, so that copying 100 MB allocates
 * nothing per chunk. On a system without `mkfifo` the stream copy of src/run/masked-output.ts is used.
 */
import { spawn } from 'node:child_process'
import { closeSync, constants, openSync, writeSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OutputMasker } from './output-mask.js'

/**
 * Whether masked output goes through FIFOs: only when VAULT_MASK_FIFO=1. Making them starts `mkfifo`,
 * which added 50 ms to every masked `vault run` (bench/cli: 3.02x `node -e 0` against the 3x goal of
 * issue 18), to save about 5 ms per MB of output; most runs print far less than 10 MB.
 */
export function fifoMaskingEnabled(env: NodeJS.ProcessEnv): boolean {
  return env.VAULT_MASK_FIFO === '1' && process.platform !== 'win32'
}

/** Both ends of a FIFO that is already unlinked: `writeFd` goes to the child, `readFd` stays. */
export interface OutputFifo {
  readFd: number
  writeFd: number
}

/** After this long without output, bytes held back that cannot begin a value are shown. */
const idleReleaseMs = 20
const readBufferSize = 1 << 20

/**
 * `count` FIFOs made in a private (mode 700) directory that is removed at once, or undefined when
 * they cannot be made (no `mkfifo`, Windows). Asynchronous, so that `vault run` can make them while
 * it fetches the secrets (starting `mkfifo` costs about 15 ms on a loaded 2-core machine).
 */
export async function openOutputFifos(count: number): Promise<OutputFifo[] | undefined> {
  if (process.platform === 'win32' || count === 0) return undefined
  const dir = await mkdtemp(join(tmpdir(), 'vault-run-'))
  const opened: number[] = []
  try {
    const paths = Array.from({ length: count }, (_, index) => join(dir, `output-${index}`))
    const made = await new Promise<boolean>((resolve) => {
      const maker = spawn('mkfifo', ['-m', '600', ...paths], { stdio: 'ignore' })
      maker.once('error', () => resolve(false))
      maker.once('exit', (code) => resolve(code === 0))
    })
    if (!made) return undefined
    return paths.map((path) => {
      const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
      opened.push(readFd)
      const writeFd = openSync(path, constants.O_WRONLY)
      opened.push(writeFd)
      return { readFd, writeFd }
    })
  } catch {
    for (const fd of opened) closeSync(fd)
    return undefined
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Closes FIFOs that will not be used. */
export function closeOutputFifos(fifos: OutputFifo[]): void {
  for (const fifo of fifos) for (const fd of [fifo.readFd, fifo.writeFd]) closeSync(fd)
}

/** A running copy: `stop` closes the FIFO's read end, `done` resolves once all was written. */
export interface FifoCopy {
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
 * Copies the FIFO `readFd` through a masker to `target`, with the guarantees of pipeMasked: output that
 * pauses is shown, a closed target (EPIPE) closes the FIFO as a direct pipe would, and a copy stopped
 * early masks what it held back. The masked pieces, views into the read buffer, are written directly;
 * when the target is full (EAGAIN: Node's stdout is a non-blocking pipe) the rest goes through the
 * target's stream, without a copy, and reading pauses (keeping that buffer unchanged) until it is out.
 */
export function copyFifoMasked(readFd: number, target: CopyTarget, values: string[]): FifoCopy {
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
    for (const piece of pieces) {
      if (queued > 0) {
        queue(piece)
        continue
      }
      let offset = 0
      try {
        while (offset < piece.length) offset += writeSync(target.fd, piece, offset)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
          source.destroy()
          return false
        }
        queue(piece.subarray(offset))
      }
    }
    return queued === 0
  }
  const idle = setTimeout(() => deliver([masker.release()]), idleReleaseMs)
  idle.unref()
  target.stream.on('error', onTargetError)
  const source: Socket = new Socket({
    fd: readFd,
    readable: true,
    writable: false,
    onread: {
      buffer: Buffer.allocUnsafe(readBufferSize),
      callback: (size: number, buffer: Uint8Array) => {
        idle.refresh()
        return deliver(masker.pushPieces(Buffer.from(buffer.buffer, buffer.byteOffset, size)))
      },
    },
  })
  let ended = false
  source.once('end', () => {
    ended = true
    deliver([masker.end()])
  })
  source.once('close', () => {
    clearTimeout(idle)
    closed = true
    if (!ended) deliver([masker.cut()])
    if (queued === 0) finishCopy()
  })
  source.on('error', () => source.destroy())
  return { stop: () => source.destroy(), waitingForReader: () => queued > 0, done }
}
