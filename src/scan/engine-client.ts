/**
 * A read-only client of the Docker engine API for `vault scan --engine`: GET requests over a unix
 * socket (`unix:///run/docker.sock`) or TCP (`tcp://127.0.0.1:2375`, the vault proxy's address), JSON
 * bodies capped in size (an engine or proxy that sends more is refused), log streams handed over as
 * they come and demultiplexed when the container has no TTY.
 */
import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { NotFoundError, UnreachableError, UsageError } from '../errors.js'

const jsonLimit = 64 << 20
const timeoutMs = 30_000

/** The engine answered 404: the image or container was removed between its listing and this read. */
export class EngineObjectGoneError extends NotFoundError {
  override name = 'EngineObjectGoneError'
  override readonly code: string = 'ERR_ENGINE_OBJECT_GONE'
}

/** `read`'s result, or undefined when its object is gone (a container another client removed meanwhile). */
export async function unlessGone<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read
  } catch (error) {
    if (error instanceof EngineObjectGoneError) return undefined
    throw error
  }
}

export interface EngineAddress {
  socketPath?: string
  host?: string
  port?: number
}

/** Parses `unix:///path`, a bare `/path`, or `tcp://host:port` (also `http://host:port`). */
export function parseEngineAddress(address: string): EngineAddress {
  if (address.startsWith('/')) return { socketPath: address }
  let url: URL
  try {
    url = new URL(address)
  } catch {
    throw new UsageError(`--engine ${JSON.stringify(address)} is not an engine address`, {
      hint: 'unix:///var/run/docker.sock or tcp://127.0.0.1:2375',
    })
  }
  if (url.protocol === 'unix:') return { socketPath: url.pathname }
  if ((url.protocol === 'tcp:' || url.protocol === 'http:') && url.hostname && url.port)
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) }
  throw new UsageError(`--engine ${JSON.stringify(address)} is not an engine address`, {
    hint: 'unix:///var/run/docker.sock or tcp://127.0.0.1:2375 (TLS is not supported)',
  })
}

/** Opens GET `path`; resolves with the response once its head arrived (status 200 only). */
function get(address: EngineAddress, path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    void import('node:http').then(({ request }) => {
      const outgoing = request(
        { ...address, path, method: 'GET', headers: { host: 'docker' }, timeout: timeoutMs },
        (response) => {
          if (response.statusCode === 200) return resolve(response)
          response.resume()
          if (response.statusCode === 404)
            return reject(
              new EngineObjectGoneError(`the engine has no ${path.split('?')[0]} (removed meanwhile)`),
            )
          reject(
            new UnreachableError(`the engine answered ${response.statusCode} to GET ${path.split('?')[0]}`),
          )
        },
      )
      outgoing.on('timeout', () => outgoing.destroy(new Error('ETIMEDOUT')))
      outgoing.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          new UnreachableError(`the engine is unreachable: ${error.code ?? error.message}`, {
            hint: 'check --engine (unix:///var/run/docker.sock or tcp://127.0.0.1:PORT)',
          }),
        ),
      )
      outgoing.end()
    }, reject)
  })
}

/** GETs `path` and parses its JSON body (at most 64 MiB). */
export async function getJson<T>(address: EngineAddress, path: string): Promise<T> {
  const response = await get(address, path)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > jsonLimit) {
      response.destroy()
      throw new UnreachableError(`the engine's answer to GET ${path.split('?')[0]} is over 64 MiB`)
    }
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T
  } catch {
    throw new UnreachableError(`the engine's answer to GET ${path.split('?')[0]} is not JSON`)
  }
}

/** The output of a container (stdout and stderr, one stream), as it comes. */
export async function containerLogs(
  address: EngineAddress,
  id: string,
  tty: boolean,
): Promise<AsyncIterable<Uint8Array>> {
  const response = await get(address, `/containers/${encodeURIComponent(id)}/logs?stdout=1&stderr=1`)
  return tty ? (response as Readable) : demultiplex(response)
}

/** Docker's multiplexed stream: frames of an 8-byte header (stream, 0, 0, 0, size as uint32 BE). */
export async function* demultiplex(stream: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let header = Buffer.alloc(0)
  let remaining = 0
  for await (const input of stream) {
    let chunk = Buffer.from(input)
    while (chunk.length > 0) {
      if (remaining > 0) {
        const take = Math.min(remaining, chunk.length)
        yield chunk.subarray(0, take)
        remaining -= take
        chunk = chunk.subarray(take)
        continue
      }
      const need = 8 - header.length
      header = Buffer.concat([header, chunk.subarray(0, need)])
      chunk = chunk.subarray(need)
      if (header.length < 8) break
      remaining = header.readUInt32BE(4)
      header = Buffer.alloc(0)
    }
  }
}
