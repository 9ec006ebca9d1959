/**
 * Masked output through FIFOs (VAULT_MASK_FIFO=1): the child writes into a FIFO (a real pipe), which
 * the CLI reads with the fast copy (src/masking/fast-copy.ts). Without `mkfifo` the default Unix sockets
 * (src/masking/socket-output.ts) are used.
 */
import { spawn } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { copyMaskedFast, readBufferSize } from './fast-copy.js'
import type { OutputChannel } from './output-channel.js'

/**
 * `count` FIFOs made in a private (mode 700) directory that is removed at once, or undefined when
 * they cannot be made (no `mkfifo`, Windows). Asynchronous, so that `vault run` can make them while
 * it fetches the secrets (starting `mkfifo` costs start-up time: docs/cli-performance.md).
 */
export async function openOutputFifos(count: number): Promise<OutputChannel[] | undefined> {
  if (process.platform === 'win32' || count === 0) return undefined
  const dir = await mkdtemp(join(tmpdir(), 'vault-run-')).catch(() => undefined)
  if (dir === undefined) return undefined
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
      return fifoChannel(readFd, writeFd)
    })
  } catch {
    for (const fd of opened) closeSync(fd)
    return undefined
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The channel of an open FIFO: the child gets the write end, the CLI reads the other. */
function fifoChannel(readFd: number, writeFd: number): OutputChannel {
  return {
    childEnd: writeFd,
    start(target, values) {
      closeQuietly(writeFd)
      return copyMaskedFast(
        (onChunk) =>
          new Socket({
            fd: readFd,
            readable: true,
            writable: false,
            onread: {
              buffer: Buffer.allocUnsafe(readBufferSize),
              callback: (size: number, buffer: Uint8Array) =>
                onChunk(Buffer.from(buffer.buffer, buffer.byteOffset, size)),
            },
          }),
        target,
        values,
      )
    },
    close() {
      closeQuietly(readFd)
      closeQuietly(writeFd)
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
