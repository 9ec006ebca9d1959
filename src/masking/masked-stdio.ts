/**
 * The child's stdout and stderr when `vault run` masks them: a channel per masked stream with the fast
 * copy (src/masking/output-channel.ts: Unix sockets, or FIFOs with VAULT_MASK_FIFO=1), or, where no
 * channel can be made, Node's pipe with the stream copy (src/masking/masked-output.ts). Streams that are
 * not masked are inherited. When stdout and stderr are one output (`2>&1`: src/masking/same-output.ts),
 * the child gets one channel as both, copied to the CLI's stdout: its writes keep their order and a
 * value split between the two streams is masked. Node's pipes, the fallback, keep them apart: Node
 * cannot give a child one pipe as two of its descriptors, so the run then says once that the order
 * of stdout and stderr is not kept, and why.
 *
 * This module is the one entry of the masking code that `vault run` loads at run time (the plan's
 * value check and the channels made ahead come from here too), so that the bundle loads it as one
 * chunk and its shared code, not seven small files on the start-up path.
 */
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import type { Readable } from 'node:stream'
import { closeOutputChannels, openOutputChannels, type OutputChannel } from './output-channel.js'
import { pipeMasked, settleCopies, streamCopyHandle, type CopyHandle } from './masked-output.js'
import { channelCount } from './mask-plan.js'

export { maskableValues } from './mask-matcher.js'
export { openOutputChannels } from './output-channel.js'

/** Which streams are masked and the values to mask. */
export interface MaskedStreams {
  stdout: boolean
  stderr: boolean
  /** Both are masked and are one output: one channel for both (src/masking/mask-plan.ts). */
  shared?: boolean
  values: string[]
  /** Channels made ahead (openOutputChannels: one when shared, else one per masked stream, stdout first); used by one child only. */
  channels?: Promise<OutputChannel[] | undefined>
  /** Where the run's warning goes when the shared output falls back to two pipes. */
  warn?: (line: string) => void
}

/** What to give `spawn` for stdout and stderr, and how to start the copies once it has run. */
export interface MaskedStdio {
  stdout: 'inherit' | 'pipe' | number | Socket
  stderr: 'inherit' | 'pipe' | number | Socket
  /** Call right after `spawn`: closes the CLI's copy of the child's ends and starts copying. */
  start(child: { stdout: Readable | null; stderr: Readable | null }): { settle(): Promise<void> }
}

/** Prepares the masked streams' plumbing before the child is spawned. */
export async function prepareMaskedStdio(masked: MaskedStreams): Promise<MaskedStdio> {
  const names = (['stdout', 'stderr'] as const).filter((name) => masked[name])
  const count = channelCount(masked)
  let channels = await (masked.channels ?? openOutputChannels(count, process.env))
  if (channels && channels.length !== count) {
    closeOutputChannels(channels)
    channels = await openOutputChannels(count, process.env)
  }
  if (channels && masked.shared) return sharedStdio(channels[0]!, masked.values)
  if (masked.shared) warnOrderLost(masked.warn)
  const channelOf = (name: 'stdout' | 'stderr'): OutputChannel | undefined => channels?.[names.indexOf(name)]
  const stdioOf = (name: 'stdout' | 'stderr') =>
    masked[name] ? (channelOf(name)?.childEnd ?? ('pipe' as const)) : ('inherit' as const)
  return {
    stdout: stdioOf('stdout'),
    stderr: stdioOf('stderr'),
    start(child) {
      const copies: Promise<void>[] = []
      const handles: CopyHandle[] = []
      for (const name of names) {
        const target = process[name]
        const channel = channelOf(name)
        if (channel) {
          const copy = channel.start({ fd: name === 'stdout' ? 1 : 2, stream: target }, masked.values)
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

let orderLostTold = false

/**
 * Says once per run (a --watch restart does not repeat it) that the fallback's two pipes do not keep
 * the order of stdout and stderr written to one output, and why no channel was made.
 */
function warnOrderLost(warn: ((line: string) => void) | undefined): void {
  if (orderLostTold || !warn) return
  orderLostTold = true
  const why =
    process.platform === 'win32'
      ? 'Windows has no Unix socket or FIFO for it'
      : `no private socket could be made in the temporary directory ${tmpdir()} (TMPDIR)`
  warn(
    `stdout and stderr are one output, but the masked channel they would share could not be made (${why}); ` +
      'they are masked through two separate pipes, so the order of lines written to stdout and to stderr is not kept, ' +
      'and a value written partly to each is not masked',
  )
}

/** One channel as the child's stdout and stderr, copied to the CLI's stdout (the same output as its stderr). */
function sharedStdio(channel: OutputChannel, values: string[]): MaskedStdio {
  return {
    stdout: channel.childEnd,
    stderr: channel.childEnd,
    start() {
      const copy = channel.start({ fd: 1, stream: process.stdout }, values)
      return { settle: () => settleCopies([copy.done], [copy]) }
    },
  }
}
