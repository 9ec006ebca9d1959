/**
 * A real vault for the backup tests: the server's own request handler on 127.0.0.1:0 over a real
 * SQLite file or PostgreSQL database, a project with an identity, and HTTP helpers (token, write,
 * read a version) so data is written and read back exactly as clients do it.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { verifyAuditChain } from '../../src/server/audit/audit-verify.js'
import type { VaultContext } from '../../src/server/context.js'
import { createIdentity, createProject } from '../../src/server/identities.js'
import { writeSecret } from '../../src/server/secrets/secrets.js'
import { startVault as startServer, type RunningVault } from '../../src/server/server.js'

export type { RunningVault }

export interface Credentials {
  clientId: string
  clientSecret: string
  projectId: string
}

/** A fresh random ENCRYPTION_KEY in hex. */
export function newKeyHex(): string {
  return randomBytes(32).toString('hex')
}

/** Opens the store at `dbUrl` with `keyHex` and serves the vault API on 127.0.0.1:0 (the real server). */
export async function startVault(dbUrl: string, keyHex: string): Promise<RunningVault> {
  return startServer(
    {
      encryptionKey: Buffer.from(keyHex, 'hex'),
      jwtSecret: randomBytes(32),
      dbUrl,
      host: '127.0.0.1',
      port: 0,
      dev: true,
      behindProxy: false,
    },
    { tokenRequestsPerMinute: 100_000 },
  )
}

/** Creates project `demo` (dev, prod) and an identity with read/write on both. */
export async function seedProject(vault: RunningVault): Promise<Credentials> {
  return vault.context.driver.transaction(async (tx) => {
    const project = await createProject(tx, 'demo', ['dev', 'prod'])
    const { identity, clientSecret } = await createIdentity(tx, vault.context.keyring, {
      projectId: project.id,
      name: 'demo-deployment',
      permissions: {
        dev: ['read', 'write'],
        prod: ['read', 'write'],
      },
    })
    return { clientId: identity.clientId, clientSecret, projectId: project.id }
  })
}

/** Logs in with client credentials; returns the HTTP status and the token (when 200). */
export async function login(
  url: string,
  credentials: Credentials,
): Promise<{ status: number; token?: string }> {
  const response = await fetch(`${url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    }),
  })
  const body = (await response.json()) as { access_token?: string }
  return { status: response.status, token: body.access_token }
}

/** PUTs a value; returns the new version. */
export async function putSecret(
  url: string,
  token: string,
  env: string,
  name: string,
  value: string,
): Promise<number> {
  const response = await fetch(`${url}/api/v1/secrets/${name}?environment=${env}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ value }),
  })
  if (response.status >= 300) throw new Error(`PUT ${name} answered ${response.status}`)
  return ((await response.json()) as { version: number }).version
}

/** Reads version `version` of a secret (or the current value without one); null on 404. */
export async function readSecret(
  url: string,
  token: string,
  env: string,
  name: string,
  version?: number,
): Promise<string | null> {
  const path = version === undefined ? name : `${name}/versions/${version}`
  const response = await fetch(`${url}/api/v1/secrets/${path}?environment=${env}`, {
    headers: { authorization: `Bearer ${token}` },
  })
  if (response.status === 404) return null
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`)
  return ((await response.json()) as { value: string }).value
}

/** Whether the audit chain of the running vault verifies. */
export async function auditChainVerifies(vault: RunningVault): Promise<boolean> {
  return (await verifyAuditChain(vault.context.driver, vault.context.keyring.auditKey)).ok
}

/** Drops and recreates a PostgreSQL database (the wipe), connecting through the cluster's `postgres` db. */
export async function recreatePostgresDatabase(dbUrl: string): Promise<void> {
  const url = new URL(dbUrl)
  const name = url.pathname.slice(1)
  url.pathname = '/postgres'
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
}

/** Writes `count` versions spread over a few secrets of `dev` directly through the server's domain code. */
export async function seedVersions(
  vault: { context: VaultContext },
  projectId: string,
  count: number,
  prefix: string,
) {
  const scope = { projectId, environment: 'dev', actor: 'test:seed', requestId: 'seed', ip: '127.0.0.1' }
  for (let start = 0; start < count; start += 500) {
    await vault.context.driver.transaction(async (tx) => {
      for (let i = start; i < Math.min(count, start + 500); i++) {
        await writeSecret(
          { context: vault.context, tx, scope },
          { name: `BULK_${i % 50}`, value: `${prefix}-${i}`, mode: 'upsert' },
        )
      }
    })
  }
}
