/**
 * The child's stdout and stderr when `vault run` masks them: Node's pipe with the stream copy
 * (src/run/masked-output.ts), or, with VAULT_MASK_FIFO=1 where FIFOs can be made, a FIFO per masked
 * stream with the fast copy (src/run/fifo-output.ts). Streams that are not masked are inherited.
 */
import { closeSync } from 'node:fs'
import type { Readable } from 'node:stream'
import {
  closeOutputFifos,
  copyFifoMasked,
  fifoMaskingEnabled,
  openOutputFifos,
  type OutputFifo,
} from './fifo-output.js'
import { pipeMasked, settleCopies, streamCopyHandle, type CopyHandle } from './masked-output.js'

/** Which streams are masked and the values to mask. */
export interface MaskedStreams {
  stdout: boolean
  stderr: boolean
  values: string[]
  /** FIFOs made ahead (openOutputFifos, one per masked stream, stdout first); used by one child only. */
  fifos?: Promise<OutputFifo[] | undefined>
}

/** What to give `spawn` for stdout and stderr, and how to start the copies once it has run. */
export interface MaskedStdio {
  stdout: 'inherit' | 'pipe' | number
  stderr: 'inherit' | 'pipe' | number
  /** Call right after `spawn`: closes the CLI's copy of the FIFOs' write ends and starts copying. */
  start(child: { stdout: Readable | null; stderr: Readable | null }): { settle(): Promise<void> }
}

/** Prepares the masked streams' plumbing before the child is spawned. */
export async function prepareMaskedStdio(masked: MaskedStreams): Promise<MaskedStdio> {
  const names = (['stdout', 'stderr'] as const).filter((name) => masked[name])
  const wanted = fifoMaskingEnabled(process.env)
  let fifos = await (masked.fifos ?? (wanted ? openOutputFifos(names.length) : undefined))
  if (fifos && fifos.length !== names.length) {
    closeOutputFifos(fifos)
    fifos = await openOutputFifos(names.length)
  }
  const fifoOf = (name: 'stdout' | 'stderr'): OutputFifo | undefined => fifos?.[names.indexOf(name)]
  const stdioOf = (name: 'stdout' | 'stderr') =>
    masked[name] ? (fifoOf(name)?.writeFd ?? ('pipe' as const)) : ('inherit' as const)
  return {
    stdout: stdioOf('stdout'),
    stderr: stdioOf('stderr'),
    start(child) {
      const copies: Promise<void>[] = []
      const handles: CopyHandle[] = []
      for (const name of names) {
        const target = process[name]
        const fifo = fifoOf(name)
        if (fifo) {
          closeQuietly(fifo.writeFd)
          const copy = copyFifoMasked(
            fifo.readFd,
            { fd: name === 'stdout' ? 1 : 2, stream: target },
            masked.values,
          )
          copies.push(copy.done)
          handles.push(copy)
          continue
        }
        const source = child[name]
        if (!source) continue
        copies.push(pipeMasked(source, target, masked.values))
        handles.push(streamCopyHandle(source, target))
      }
      return { settle: () => settleCopies(copies, handles) }
    },
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // already closed
  }
}
