/**
 * SocketPairing (src/masking/socket-pairing.ts) with a real Unix socket server: the CLI's own connection
 * is paired with the end the server accepted (checked by sending bytes through the pair), and hostile
 * connections (a wrong token, a token with bytes after it, a token sent byte by byte, a short
 * greeting) are closed and never paired.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer, Socket, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SocketPairing } from '../../../src/masking/socket-pairing.js'

let dir: string
let server: Server
let path: string
let pairing: SocketPairing
let accepted: Socket[]
let spies = 0

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'socket-pairing-'))
  path = join(dir, 'sock')
  pairing = new SocketPairing()
  accepted = []
  server = createServer({ pauseOnConnect: true }, (socket) => {
    accepted.push(socket)
    pairing.claim(socket)
  })
  await new Promise<void>((resolve) => server.listen(path, resolve))
})
afterEach(() => {
  pairing.close()
  for (const socket of accepted) socket.destroy()
  server.close()
  rmSync(dir, { recursive: true, force: true })
})

const closed = (socket: Socket) =>
  socket.destroyed ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve()))

function connectRaw(): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = createConnection(path, () => resolve(socket))
    socket.on('error', () => undefined)
  })
}

/** The token the CLI's next connection sends, seen by a server of our own (the oracle for "a waiting token"). */
async function spyToken(): Promise<Buffer> {
  return (await spyConnect()).token
}

/** Like spyToken, with the promise `connect` returns (the end paired with the token). */
async function spyConnect(): Promise<{ token: Buffer; paired: Promise<Socket> }> {
  const spyPath = join(dir, `spy-${spies++}`)
  let paired: Promise<Socket> | undefined
  const bytes: Buffer[] = []
  const got = new Promise<Buffer>((resolve) => {
    const spy = createServer((socket) =>
      socket.on('data', (chunk: Buffer) => {
        bytes.push(chunk)
        const all = Buffer.concat(bytes)
        if (all.length >= 16) {
          socket.destroy()
          spy.close()
          resolve(all)
        }
      }),
    )
    spy.listen(spyPath, () => (paired = pairing.connect(new Socket(), spyPath)))
  })
  const token = await got
  return { token, paired: paired! }
}

describe('SocketPairing', () => {
  it('pairs the CLI’s connection with the end the server accepted', async () => {
    const reader = new Socket()
    const childEnd = await pairing.connect(reader, path)
    pairing.close([reader, childEnd])
    const heard = new Promise<string>((resolve) =>
      reader.once('data', (chunk: Buffer) => resolve(chunk.toString())),
    )
    childEnd.resume()
    childEnd.write('through the pair')
    expect(await heard).toBe('through the pair')
    expect(reader.destroyed).toBe(false)
    reader.destroy()
  })

  it('sends a fresh 16-byte token on each connection', async () => {
    const first = await spyToken()
    const second = await spyToken()
    expect(first.length).toBe(16)
    expect(second.length).toBe(16)
    expect(first.equals(second)).toBe(false)
  })

  it('closes a connection whose greeting is not a waiting token, while a token waits', async () => {
    const token = await spyToken()
    const wrong = Buffer.from(token)
    wrong[15] = wrong[15]! ^ 1
    const intruder = await connectRaw()
    intruder.write(wrong)
    await closed(intruder)
    expect(accepted[0]!.destroyed).toBe(true)
  })

  it('closes a waiting token with bytes after it', async () => {
    const token = await spyToken()
    const intruder = await connectRaw()
    intruder.write(Buffer.concat([token, Buffer.from('x')]))
    await closed(intruder)
  })

  it('pairs a waiting token that arrives byte by byte, once, and closes a second use of it', async () => {
    const { token, paired } = await spyConnect()
    const slow = await connectRaw()
    for (const byte of token) {
      slow.write(Buffer.from([byte]))
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    expect(await paired).toBe(accepted[0])
    expect(accepted[0]!.destroyed).toBe(false)
    const again = await connectRaw()
    again.write(token)
    await closed(again)
    slow.destroy()
  })

  it('holds a short greeting without pairing it, and closes everything unpaired on close', async () => {
    const intruder = await connectRaw()
    intruder.write(Buffer.alloc(8, 3))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(intruder.destroyed).toBe(false)
    pairing.close()
    await closed(intruder)
    const late = await connectRaw()
    await closed(late)
  })
})
