/**
 * One webhook delivery over node:http(s): the receiver is resolved and checked (webhook-target), the
 * connection goes to that checked address (no second DNS answer can redirect it), redirects are never
 * followed (a 3xx is a failure) and the response body is read and dropped up to a small cap. The whole
 * delivery (name resolution, connect, headers, body) has one deadline, so a receiver that trickles bytes
 * or a name server that never answers cannot hold the worker, which delivers one item at a time, past it.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { UsageError } from '../../errors.js'
import { checkReceiver, pinnedLookup, type Resolver } from './webhook-target.js'

/** The default deadline of one delivery, name resolution included. */
export const deliveryTimeoutMs = 5_000
const maxResponseBytes = 64 * 1024

export interface DeliveryRequest {
  url: string
  body: string
  headers: Record<string, string>
  allowPrivate: boolean
  resolve?: Resolver
  /** The whole delivery's deadline (default deliveryTimeoutMs); tests give a short one. */
  timeoutMs?: number
}

/** Sends one delivery; resolves to null when the receiver answered 2xx, else to a short failure text. */
export async function deliver(delivery: DeliveryRequest): Promise<string | null> {
  const deadline = AbortSignal.timeout(delivery.timeoutMs ?? deliveryTimeoutMs)
  let target
  try {
    target = await checkReceiver(new URL(delivery.url), {
      allowPrivate: delivery.allowPrivate,
      resolve: delivery.resolve,
      deadline,
    })
  } catch (error) {
    const why = error instanceof UsageError ? 'refused' : 'unresolvable'
    return `${why}: ${(error as Error).message}`.slice(0, 300)
  }
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve) => {
    const outgoing = send(
      target.url,
      {
        method: 'POST',
        headers: { ...delivery.headers, 'content-length': Buffer.byteLength(delivery.body) },
        lookup: pinnedLookup(target),
        signal: deadline,
      },
      (response) => {
        let size = 0
        response.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > maxResponseBytes) response.destroy()
        })
        response.on('close', () => {
          const status = response.statusCode ?? 0
          if (status >= 200 && status < 300) resolve(null)
          else if (status >= 300 && status < 400) resolve(`HTTP ${status} (redirects are not followed)`)
          else resolve(`HTTP ${status}`)
        })
      },
    )
    outgoing.on('error', (error) => resolve((error as Error).message.slice(0, 200) || 'Error'))
    outgoing.end(delivery.body)
  })
}
