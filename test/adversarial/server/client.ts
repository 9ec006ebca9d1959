/**
 * A raw HTTP client for the adversarial server tests: sends exactly the bytes and headers given, from a
 * chosen loopback source address (127.x.y.z, so the server sees distinct clients without any network
 * setup), and returns status, headers and body. Also reads audit rows straight from the store.
 */
import { request } from 'node:http'
import type { TestVault } from '../../helpers/vault-server.js'

export interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

export interface RawRequest {
  method?: string
  path: string
  from?: string
  headers?: Record<string, string>
  body?: string | Buffer
}

/** Sends one request to the vault from `from` (default 127.0.0.1). */
export function send(vault: { url: string }, raw: RawRequest): Promise<RawAnswer> {
  const url = new URL(raw.path, vault.url)
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: raw.method ?? 'GET',
        headers: raw.headers,
        localAddress: raw.from ?? '127.0.0.1',
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    outgoing.on('error', reject)
    outgoing.end(raw.body)
  })
}

/** A client-credentials request body. */
export function loginBody(clientId: string, clientSecret: string): RawRequest {
  return {
    method: 'POST',
    path: '/api/v1/auth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
  }
}

/** Every audit row, oldest first, straight from the store. */
export function auditRows(vault: TestVault) {
  return vault.running.context.driver.transaction((tx) =>
    tx.all<{
      seq: number
      actor: string
      action: string
      target: string | null
      result: string
      ip: string | null
      detail: string | null
      environment: string | null
      request_id: string | null
    }>(
      `SELECT seq, actor, action, target, result, ip, detail, environment, request_id FROM audit_events ORDER BY seq`,
    ),
  )
}
