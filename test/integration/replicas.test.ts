/**
 * Replicas on one PostgreSQL (issue 20): two real server processes group-commit their audit events
 * into ONE chain. After 2 replicas x 16 clients of mixed lists, reads and PATCHes, and again after one
 * replica is SIGKILLed in the middle of such a load, `vault audit verify` (the built CLI) finds the
 * chain intact (no fork, no gap), and every request that was answered has its audit event: a request
 * is answered only after its event is durable. PostgreSQL only (SQLite has one writer process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createDatabase, postgresOrNull, unavailableReason } from '../helpers/components.js'
import {
  spawnVaultProcess,
  startVaultServer,
  type TestVault,
  type VaultProcess,
} from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const clientsPerReplica = 16
const requestsPerClient = 12
const secretNames = Array.from({ length: 8 }, (_, i) => `REPLICA_${i}`)

interface Answer {
  status: number
  requestId: string
  action: string
  target: string | null
}

/** One request of a client's mix: list, read one, or PATCH one (by turn). */
async function mixedRequest(base: string, token: string, turn: number): Promise<Answer> {
  const name = secretNames[turn % secretNames.length]!
  const kind = turn % 3
  const path = kind === 0 ? '/api/v1/secrets?environment=dev' : `/api/v1/secrets/${name}?environment=dev`
  const response = await fetch(`${base}${path}`, {
    method: kind === 2 ? 'PATCH' : 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(kind === 2 ? { 'content-type': 'application/json' } : {}),
    },
    body: kind === 2 ? JSON.stringify({ value: `value-${turn}` }) : undefined,
  })
  await response.arrayBuffer()
  const action = kind === 0 ? 'secret.list' : kind === 1 ? 'secret.read' : 'secret.update'
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? '',
    action,
    target: kind === 0 ? null : name,
  }
}

/** Runs `clientsPerReplica` clients against each replica; a refused connection ends that client. */
async function load(replicas: VaultProcess[], token: string, onAnswer?: (count: number) => void) {
  const answers: Answer[] = []
  const refused: unknown[] = []
  await Promise.all(
    replicas.flatMap((replica, r) =>
      Array.from({ length: clientsPerReplica }, async (_, client) => {
        for (let i = 0; i < requestsPerClient; i++) {
          try {
            answers.push(await mixedRequest(replica.url, token, r * 1000 + client * 31 + i))
            onAnswer?.(answers.length)
          } catch (error) {
            refused.push(error)
            return
          }
        }
      }),
    ),
  )
  return { answers, refused }
}

describe.skipIf(!postgres)(`two replicas on one PostgreSQL (${unavailableReason('postgres')})`, () => {
  let vault: TestVault
  let replicas: VaultProcess[] = []
  let token: string

  beforeAll(async () => {
    vault = await startVaultServer({ dbUrl: await createDatabase(postgres!, 'vault_replicas') })
    const admin = await vault.token(vault.deploymentCredentials)
    for (const name of secretNames) {
      const put = await fetch(`${vault.url}/api/v1/secrets/${name}?environment=dev`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: 'initial' }),
      })
      expect(put.status).toBe(201)
    }
    await vault.running.close()
    replicas = await Promise.all([spawnVaultProcess(vault), spawnVaultProcess(vault)])
    token = await vault.token(vault.deploymentCredentials, replicas[0]!.url)
  })

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()))
    await vault?.stop()
  })

  /** `vault audit verify` on the database, as an operator runs it. */
  async function verify() {
    return runCommandLine(['audit', 'verify'], {
      env: { DB_URL: vault.dbUrl, ENCRYPTION_KEY: vault.encryptionKey },
    })
  }

  /** The audit rows of these request ids. */
  async function eventsOf(answers: Answer[]) {
    const client = new pg.Client({ connectionString: vault.dbUrl })
    await client.connect()
    try {
      const { rows } = await client.query<{ request_id: string; action: string; target: string | null }>(
        `SELECT request_id, action, target FROM audit_events WHERE request_id = ANY($1::text[])`,
        [answers.map((answer) => answer.requestId)],
      )
      return new Map(rows.map((row) => [row.request_id, row]))
    } finally {
      await client.end()
    }
  }

  function expectEveryAnswerAudited(answers: Answer[], events: Map<string, { action: string }>) {
    const missing = answers.filter((answer) => events.get(answer.requestId)?.action !== answer.action)
    expect(missing).toEqual([])
  }

  it('keeps one intact chain under 2 replicas x 16 clients of lists, reads and PATCHes', async () => {
    const { answers, refused } = await load(replicas, token)
    expect(refused).toEqual([])
    expect(answers).toHaveLength(2 * clientsPerReplica * requestsPerClient)
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([])
    expectEveryAnswerAudited(answers, await eventsOf(answers))
    const verified = await verify()
    expect(verified.exitCode, verified.stderr).toBe(0)
    expect(verified.stderr).toMatch(/audit chain intact: \d+ events/)
  })

  it('keeps it intact when one replica is SIGKILLed mid-load, and audits every answered request', async () => {
    const [survivor, victim] = replicas as [VaultProcess, VaultProcess]
    let killed = false
    const { answers, refused } = await load(replicas, token, (count) => {
      if (!killed && count >= clientsPerReplica * 4) {
        killed = true
        victim.child.kill('SIGKILL')
      }
    })
    expect(killed).toBe(true)
    expect(refused.length).toBeGreaterThan(0)
    const answered = answers.filter((answer) => answer.status === 200)
    const failed = answers.filter((answer) => answer.status !== 200)
    expect(failed).toEqual([])
    expectEveryAnswerAudited(answered, await eventsOf(answered))
    const verified = await verify()
    expect(verified.exitCode, verified.stderr).toBe(0)
    expect(verified.stderr).toMatch(/audit chain intact: \d+ events/)
    // the survivor still serves and chains after the kill
    const after = await mixedRequest(survivor.url, token, 2)
    expect(after.status).toBe(200)
    expect((await verify()).exitCode).toBe(0)
  })
})
