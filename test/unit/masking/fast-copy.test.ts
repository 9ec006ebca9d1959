/**
 * The fast masked copy (src/masking/fast-copy.ts) with real Unix sockets as the source and real files
 * or a real child's pipe as the target. The oracle is a plain `split(value).join(mask)` of everything
 * written (the value has no self-overlap, so leftmost replacement is unambiguous), never the masker.
 */
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { createServer, Socket, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  copyMaskedFast,
  readBufferSize,
  type CopyTarget,
  type FastCopy,
} from '../../../src/masking/fast-copy.js'

const value = 'CANARY-fastcopy-7Q'
const mask = '********'
const reference = (text: string) => text.split(value).join(mask)

let dir: string
let server: Server
const accepted: ((socket: Socket) => void)[] = []
let runs = 0

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fast-copy-'))
  server = createServer((socket) => accepted.shift()?.(socket))
  await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve))
})
afterAll(() => {
  server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts a copy from a fresh connection into `target`; resolves with the copy and the writing end. */
async function startCopy(target: CopyTarget): Promise<{ copy: FastCopy; writer: Socket }> {
  const writer = new Promise<Socket>((resolve) => accepted.push(resolve))
  let copy: FastCopy | undefined
  await new Promise<void>((connected) => {
    copy = copyMaskedFast(
      (onChunk) => {
        const reader = new Socket({
          onread: {
            buffer: Buffer.allocUnsafe(readBufferSize),
            callback: (size: number, buffer: Uint8Array) =>
              onChunk(Buffer.from(buffer.buffer, buffer.byteOffset, size)),
          },
        })
        reader.connect(join(dir, 'sock'), connected)
        return reader
      },
      target,
      [value],
    )
  })
  return { copy: copy!, writer: await writer }
}

function fileTarget(): { target: CopyTarget; path: string; stream: PassThrough; close(): void } {
  const path = join(dir, `out-${runs++}`)
  const fd = openSync(path, 'w')
  const stream = new PassThrough()
  return { target: { fd, stream }, path, stream, close: () => closeSync(fd) }
}

const write = (socket: Socket, text: string) =>
  new Promise<void>((resolve) => socket.write(text, () => resolve()))
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await pause(5)
}

describe('copyMaskedFast', () => {
  it('writes exactly the reference masking of any sequence of writes, values split across reads included', async () => {
    const piece = fc.oneof(
      fc.constant(value),
      fc.string({ unit: fc.constantFrom('C', 'A', 'N', '-', 'x', '7', 'Q', '\n', 'é'), maxLength: 30 }),
      fc.integer({ min: 1, max: value.length - 1 }).map((cut) => value.slice(0, cut)),
      fc.integer({ min: 1, max: value.length - 1 }).map((cut) => value.slice(cut)),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(piece, { maxLength: 6 }), { maxLength: 6 }), async (writes) => {
        const file = fileTarget()
        const { copy, writer } = await startCopy(file.target)
        for (const parts of writes) {
          await write(writer, parts.join(''))
          await pause(1)
        }
        writer.end()
        await copy.done
        file.close()
        expect(readFileSync(file.path, 'utf8')).toBe(reference(writes.flat().join('')))
        expect(file.stream.read()).toBeNull()
      }),
      { numRuns: 25 },
    )
  })

  it('shows output that pauses, holding back only what may begin the value', async () => {
    const file = fileTarget()
    const { copy, writer } = await startCopy(file.target)
    await write(writer, 'ready CANARY-fast')
    await until(() => readFileSync(file.path, 'utf8').length > 0)
    expect(readFileSync(file.path, 'utf8')).toBe('ready ')
    await write(writer, 'copy-7Q done\n')
    writer.end()
    await copy.done
    file.close()
    expect(readFileSync(file.path, 'utf8')).toBe(`ready ${mask} done\n`)
  })

  it('masks what it held back when stopped early, and finishes', async () => {
    const file = fileTarget()
    const { copy, writer } = await startCopy(file.target)
    writer.on('error', () => undefined)
    await write(writer, 'tail CANARY-fastcopy-')
    await until(() => readFileSync(file.path, 'utf8').length > 0)
    copy.stop()
    await copy.done
    file.close()
    const out = readFileSync(file.path, 'utf8')
    expect(out.startsWith('tail ')).toBe(true)
    expect(out).not.toContain('CANARY')
  })

  it('loses nothing when the target pipe is full (EAGAIN), and says it waits for the reader', async () => {
    const out = join(dir, `slow-${runs++}`)
    const child = spawn('sh', ['-c', `sleep 0.3; cat > "${out}"`], { stdio: ['pipe', 'ignore', 'inherit'] })
    const stdin = child.stdin!
    const fd = (stdin as unknown as { _handle: { fd: number } })._handle.fd
    const { copy, writer } = await startCopy({ fd, stream: stdin })
    const line = `${'y'.repeat(100)} ${value} ${'z'.repeat(50)}\n`
    const text = Array.from({ length: 20_000 }, (_, i) => `${i} ${line}`).join('')
    let waited = false
    const watch = setInterval(() => (waited ||= copy.waitingForReader()), 2)
    writer.end(text)
    await copy.done
    clearInterval(watch)
    stdin.end()
    await new Promise((resolve) => child.once('close', resolve))
    expect(waited).toBe(true)
    const written = readFileSync(out, 'utf8')
    expect(written.length).toBe(reference(text).length)
    expect(written).toBe(reference(text))
  })

  it('closes the source when the target is closed (EPIPE), as a direct pipe would', async () => {
    const fifo = join(dir, `fifo-${runs++}`)
    execFileSync('mkfifo', [fifo])
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)
    closeSync(readEnd)
    const { copy, writer } = await startCopy({ fd, stream: new PassThrough() })
    writer.on('error', () => undefined)
    const writerClosed = new Promise((resolve) => writer.once('close', resolve))
    writer.write('x'.repeat(1000))
    await copy.done
    await writerClosed
    closeSync(fd)
  })
})
