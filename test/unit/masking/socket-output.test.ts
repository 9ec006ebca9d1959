/**
 * The masked output's socket connections (src/masking/socket-output.ts) with real Unix sockets and a real
 * child: a connection that reaches the socket before the CLI's own is closed and never becomes the
 * child's output, and when the CLI's connections cannot be paired (the socket's path taken by another
 * server) the wait ends in time with MaskChannelError, every socket closed and no directory left.
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs'
import { createConnection, createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ExitCode } from '../../../src/errors.js'
import { MaskChannelError, openOutputSockets } from '../../../src/masking/socket-output.js'

const canary = 'CANARY-socket-pairing-51c0'

describe('openOutputSockets', () => {
  let dir: string
  let savedTmpdir: string | undefined
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'socket-output-'))
    savedTmpdir = process.env.TMPDIR
    process.env.TMPDIR = dir
  })
  afterAll(() => {
    process.env.TMPDIR = savedTmpdir
    if (savedTmpdir === undefined) delete process.env.TMPDIR
    rmSync(dir, { recursive: true, force: true })
  })
  const leftovers = () => readdirSync(dir).filter((name) => name.startsWith('vault-run-'))
  const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()))
  let opened: Socket[] = []
  afterEach(() => {
    for (const socket of opened) socket.destroy()
    opened = []
  })

  it('closes a connection that comes before the CLI’s own, and never gives it to the child', async () => {
    let intruder: Socket | undefined
    let intruderClosed: Promise<void> | undefined
    let heard = ''
    const channels = await openOutputSockets(2, {
      beforeConnect: (path) =>
        new Promise<void>((resolve) => {
          intruder = createConnection(path, resolve)
          intruder.on('data', (chunk: Buffer) => (heard += chunk.toString()))
          intruder.on('error', () => undefined)
          intruderClosed = closed(intruder)
          opened.push(intruder)
        }),
    })
    expect(channels).toHaveLength(2)
    await intruderClosed
    const out = join(dir, 'out.log')
    const fd = openSync(out, 'w')
    try {
      const child = spawn('sh', ['-c', `echo "${canary}"`], {
        stdio: ['ignore', channels![0]!.childEnd, 'ignore'],
      })
      const copy = channels![0]!.start({ fd, stream: new PassThrough() }, [canary])
      channels![1]!.close()
      await new Promise((resolve) => child.once('exit', resolve))
      await copy.done
    } finally {
      closeSync(fd)
    }
    expect(readFileSync(out, 'utf8')).toBe('********\n')
    expect(heard).toBe('')
    expect(leftovers()).toEqual([])
  })

  it('ends the wait in time with MaskChannelError when its connections are not paired', async () => {
    const decoy = createServer((socket) => {
      opened.push(socket)
      decoyClosed.push(closed(socket))
      socket.resume()
    })
    const decoyClosed: Promise<void>[] = []
    const started = Date.now()
    try {
      const attempt = openOutputSockets(2, {
        timeoutMs: 300,
        // another process takes the socket's path: the CLI's connections reach it and are never paired
        beforeConnect: (path) =>
          new Promise<void>((resolve) => {
            unlinkSync(path)
            decoy.listen(path, resolve)
          }),
      })
      const error = await attempt.then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(error).toBeInstanceOf(MaskChannelError)
      expect(error).toMatchObject({ code: 'ERR_MASK_CHANNEL', exitCode: ExitCode.io })
      expect(Date.now() - started).toBeLessThan(3000)
      // the CLI closed its own connections: the decoy sees each of them end
      expect(decoyClosed).toHaveLength(2)
      await Promise.all(decoyClosed)
      expect(leftovers()).toEqual([])
    } finally {
      decoy.close()
    }
  })
})
