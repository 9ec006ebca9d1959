/**
 * The current data key of a project when a new data key version appears in the database (what a
 * data-key rotation writes; the new key is wrapped under the root key, which the test opens with
 * ENCRYPTION_KEY as an operator would). On PostgreSQL, replica A (in this process) and replica B (a
 * real server process) have both sealed values under the old key, so both hold it as current; on
 * SQLite, the one server has. The next write through every server must be sealed under the new
 * version (its ciphertext opens with the new key), and every version, old and new, must read back
 * through every server. And a live `vault restore` on PostgreSQL of a backup taken before a project's
 * first secret removes the key both replicas hold: the writes after it, on either replica, must be
 * sealed under the key the database then holds and read back through both and through a fresh one.
 */
import { DatabaseSync } from 'node:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { open, randomKey, seal } from '../../src/crypto/envelope.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createDatabase, postgresOrNull, queryDatabase, unavailableReason } from '../helpers/components.js'
import { spawnVaultProcess, startVaultServer } from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const canary = 'CANARY-data-key-rotation-5c20e8'
const work = mkdtempSync(join(tmpdir(), 'vault-data-keys-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Runs one statement with `?` placeholders on the database at `dbUrl`, outside any vault. */
async function query(dbUrl: string, sql: string, params: (string | number)[] = []) {
  if (dbUrl.startsWith('sqlite://')) {
    const database = new DatabaseSync(dbUrl.slice('sqlite://'.length))
    try {
      return database.prepare(sql).all(...params) as Record<string, unknown>[]
    } finally {
      database.close()
    }
  }
  let n = 0
  return queryDatabase<Record<string, unknown>>(
    dbUrl,
    sql.replace(/\?/g, () => `$${++n}`),
    params,
  )
}

describe.each([
  { engine: 'sqlite', available: true },
  { engine: 'postgres', available: postgres !== null },
])('the current data key after a new version is added ($engine)', ({ engine, available }) => {
  it.skipIf(!available)(
    `seals the next write on every server under the new version (postgres: ${unavailableReason('postgres')})`,
    async () => {
      const dbUrl =
        engine === 'sqlite'
          ? `sqlite://${join(work, 'vault.db')}`
          : await createDatabase(postgres!, 'vault_data_keys')
      const vault = await startVaultServer({ dbUrl })
      const replicaB = engine === 'postgres' ? await spawnVaultProcess(vault) : undefined
      const servers = { A: vault.url, ...(replicaB ? { B: replicaB.url } : {}) }
      try {
        const token = await vault.token(vault.deploymentCredentials)
        const put = async (base: string, name: string, value: string) => {
          const response = await fetch(`${base}/api/v1/secrets/${name}?environment=dev`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ value }),
          })
          expect(response.status, await response.clone().text()).toBeLessThan(300)
          return ((await response.json()) as { version: number }).version
        }
        const read = async (base: string, path: string) => {
          const response = await fetch(`${base}/api/v1/secrets/${path}?environment=dev`, {
            headers: { authorization: `Bearer ${token}` },
          })
          expect(response.status, await response.clone().text()).toBe(200)
          return ((await response.json()) as { value: string }).value
        }
        const stored = async (name: string, version: number) => {
          const rows = await query(
            dbUrl,
            `SELECT v.ciphertext, v.key_version FROM secret_versions v JOIN secrets s ON s.id = v.secret_id
             WHERE s.project_id = ? AND s.environment = 'dev' AND s.name = ? AND v.version = ?`,
            [vault.projectId, name, version],
          )
          expect(rows).toHaveLength(1)
          return { ciphertext: String(rows[0]!.ciphertext), keyVersion: Number(rows[0]!.key_version) }
        }

        // every server seals twice (the first seal of a project may create its key; the second holds it)
        for (const version of [1, 2]) {
          for (const [server, base] of Object.entries(servers)) {
            expect(await put(base, `SEALED_ON_${server}`, `before-${server}-${version}`)).toBe(version)
          }
        }
        for (const server of Object.keys(servers)) {
          expect((await stored(`SEALED_ON_${server}`, 2)).keyVersion).toBe(1)
        }

        const [root] = await query(dbUrl, `SELECT wrapped FROM root_keys ORDER BY version DESC LIMIT 1`)
        const rootKey = open(Buffer.from(vault.encryptionKey, 'hex'), String(root!.wrapped), 'vault-root-key')
        const next = randomKey()
        await query(
          dbUrl,
          `INSERT INTO data_keys (project_id, version, root_version, wrapped, created_at) VALUES (?, 2, 1, ?, ?)`,
          [vault.projectId, seal(rootKey, next, `data-key|${vault.projectId}|2`), new Date().toISOString()],
        )

        for (const [server, base] of Object.entries(servers)) {
          const name = `SEALED_ON_${server}`
          expect(await put(base, name, `${canary}-${server}`)).toBe(3)
          const row = await stored(name, 3)
          expect(row.keyVersion).toBe(2)
          // sealed under the new key itself, not only labelled with its version
          const label = `secret|${vault.projectId}|dev|${name}|3`
          expect(open(next, row.ciphertext, label).toString('utf8')).toBe(`${canary}-${server}`)
        }
        for (const base of Object.values(servers)) {
          for (const server of Object.keys(servers)) {
            expect(await read(base, `SEALED_ON_${server}`)).toBe(`${canary}-${server}`)
            expect(await read(base, `SEALED_ON_${server}/versions/1`)).toBe(`before-${server}-1`)
          }
        }
        expect(replicaB?.log() ?? '').not.toContain(canary)
      } finally {
        await replicaB?.stop()
        await vault.stop()
      }
    },
  )
})

describe.skipIf(!postgres)(
  `a live restore that removes a data key (${unavailableReason('postgres')})`,
  () => {
    it('seals and opens the writes after it under the key the database holds, on every replica', async () => {
      const dbUrl = await createDatabase(postgres!, 'vault_data_keys_restore')
      const vault = await startVaultServer({ dbUrl })
      const replicaB = await spawnVaultProcess(vault)
      const servers = { B: replicaB.url, A: vault.url }
      const keys = { DB_URL: dbUrl, ENCRYPTION_KEY: vault.encryptionKey }
      try {
        // a project with no secret yet, so no data key, when the backup is taken
        const { projectId, credentials } = await vault.createProject('restored')
        const archive = join(work, 'before-first-secret.jsonl.gz')
        const backup = await runCommandLine(['backup', '--output', archive], { env: keys })
        expect(backup.exitCode, backup.stderr).toBe(0)
        const write = async (base: string, token: string, name: string, value: string) => {
          const response = await fetch(`${base}/api/v1/secrets/${name}?environment=dev`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ value }),
          })
          expect(response.status, await response.clone().text()).toBeLessThan(300)
        }
        const read = async (base: string, token: string, name: string) => {
          const response = await fetch(`${base}/api/v1/secrets/${name}?environment=dev`, {
            headers: { authorization: `Bearer ${token}` },
          })
          return { status: response.status, value: ((await response.json()) as { value?: string }).value }
        }
        // both replicas create or find the project's first key, seal under it and read with it
        const before = await vault.token(credentials)
        for (const [server, base] of Object.entries(servers)) {
          for (const round of [1, 2]) await write(base, before, `BEFORE_${server}`, `before-${round}`)
        }
        for (const base of Object.values(servers)) {
          for (const server of Object.keys(servers)) {
            expect(await read(base, before, `BEFORE_${server}`)).toEqual({ status: 200, value: 'before-2' })
          }
        }

        // the restore removes that key (and the tokens issued since); both replicas keep running
        const restore = await runCommandLine(['restore', archive], { env: keys })
        expect(restore.exitCode, restore.stderr).toBe(0)
        const [counted] = await query(dbUrl, `SELECT count(*) AS n FROM data_keys WHERE project_id = ?`, [
          projectId,
        ])
        expect(Number(counted!.n)).toBe(0)

        const token = await vault.token(credentials)
        const fresh = await spawnVaultProcess(vault)
        try {
          // B writes first (A still holds the removed key), then A; each read through A, B and a fresh replica
          for (const [server, base] of Object.entries(servers)) {
            for (const round of [1, 2]) await write(base, token, `AFTER_${server}`, `${canary}-${round}`)
            for (const reader of [vault.url, replicaB.url, fresh.url]) {
              expect(await read(reader, token, `AFTER_${server}`)).toEqual({
                status: 200,
                value: `${canary}-2`,
              })
            }
          }
          expect(fresh.log() + replicaB.log()).not.toContain(canary)
        } finally {
          await fresh.stop()
        }
      } finally {
        await replicaB.stop()
        await vault.stop()
      }
    })
  },
)
