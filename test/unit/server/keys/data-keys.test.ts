/**
 * Per-project data keys (src/server/keys/data-keys.ts) on a real, migrated SQLite store. Values are
 * sealed by the test itself with node:crypto's AES-256-GCM in the envelope's documented layout
 * (`v1.` + base64 of nonce, tag, ciphertext), so a key that opens them is the key the test used. The
 * rows another process would write (a new version, a live restore's replacement, a wrapped key
 * moved to another project) are written in SQL.
 */
import { createCipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seal } from '../../../../src/crypto/envelope.js'
import { IntegrityError } from '../../../../src/errors.js'
import { DataKeys } from '../../../../src/server/keys/data-keys.js'
import { openStore } from '../../../../src/server/migrations.js'
import type { SqlDriver, SqlExecutor } from '../../../../src/server/store/index.js'

const canary = 'CANARY-data-keys-0c4e'

let dir: string
let store: SqlDriver
let root: Buffer
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'data-keys-'))
  store = await openStore(`sqlite://${join(dir, 'vault.db')}`)
  root = randomBytes(32)
  await store.transaction(async (tx) => {
    await tx.run(`INSERT INTO root_keys (version, wrapped, created_at) VALUES (1, 'unused', '2026-01-01')`)
    for (const id of ['p1', 'p2'])
      await tx.run(`INSERT INTO projects (id, name, created_at) VALUES (?, ?, '2026-01-01')`, [
        id,
        `project-${id}`,
      ])
  })
})
afterEach(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

const inTx = <T>(work: (tx: SqlExecutor) => Promise<T>) => store.transaction(work)

/** AES-256-GCM with node:crypto in the envelope's layout. */
function sealWith(key: Buffer, text: string, label: string): string {
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  cipher.setAAD(Buffer.from(label, 'utf8'))
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
  return `v1.${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64')}`
}

/** Writes data key `version` of `projectId` as another process would, wrapped under `root`. */
async function addVersion(projectId: string, version: number, key = randomBytes(32)): Promise<Buffer> {
  const wrapped = seal(root, key, `data-key|${projectId}|${version}`)
  await inTx((tx) =>
    tx.run(
      `INSERT INTO data_keys (project_id, version, root_version, wrapped, created_at) VALUES (?, ?, 1, ?, '2026-01-01')
       ON CONFLICT (project_id, version) DO UPDATE SET wrapped = excluded.wrapped`,
      [projectId, version, wrapped],
    ),
  )
  return key
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )
const sealed = (key: Buffer, label = 'secret|p1|dev|A|1') => ({
  text: sealWith(key, canary, label),
  label,
  what: 'A',
})

describe('DataKeys', () => {
  it('creates version 1 once per project, a different key for each', async () => {
    const keys = new DataKeys(root)
    const first = await inTx((tx) => keys.current(tx, 'p1', undefined))
    const again = await inTx((tx) => new DataKeys(root).current(tx, 'p1', undefined))
    const other = await inTx((tx) => keys.current(tx, 'p2', undefined))
    expect(first.version).toBe(1)
    expect(again.key.equals(first.key)).toBe(true)
    expect(other.key.equals(first.key)).toBe(false)
    const rows = await inTx((tx) => tx.all(`SELECT project_id, version FROM data_keys ORDER BY project_id`))
    expect(rows).toEqual([
      { project_id: 'p1', version: 1 },
      { project_id: 'p2', version: 1 },
    ])
    const opened = await inTx((tx) => keys.open(tx, 'p1', 1, sealed(first.key)))
    expect(opened.toString()).toBe(canary)
  })

  it('follows a version another process added, unless a held counter vouches for the one it knows', async () => {
    const k1 = await addVersion('p1', 1)
    const keys = new DataKeys(root)
    expect((await inTx((tx) => keys.current(tx, 'p1', '5'))).key.equals(k1)).toBe(true)
    const k2 = await addVersion('p1', 2)
    expect((await inTx((tx) => keys.current(tx, 'p1', '5'))).version).toBe(1)
    const later = await inTx((tx) => keys.current(tx, 'p1', '6'))
    expect([later.version, later.key.equals(k2)]).toEqual([2, true])
    expect((await inTx((tx) => keys.current(tx, 'p1', undefined))).version).toBe(2)
    // an older counter reads the table, and does not take the place of what counter 6 found
    expect((await inTx((tx) => keys.current(tx, 'p1', '4'))).version).toBe(2)
    await addVersion('p1', 3)
    expect((await inTx((tx) => keys.current(tx, 'p1', '6'))).version).toBe(2)
    expect((await inTx((tx) => keys.current(tx, 'p1', '7'))).version).toBe(3)
  })

  it('names a missing version, and refuses a wrapped key moved from another project or version', async () => {
    const keys = new DataKeys(root)
    const missing = await rejection(inTx((tx) => keys.version(tx, 'p1', 9)))
    expect(missing).toBeInstanceOf(IntegrityError)
    expect((missing as Error).message).toBe('data key 9 of project p1 is missing')

    await addVersion('p1', 1)
    await inTx((tx) =>
      tx.run(
        `INSERT INTO data_keys (project_id, version, root_version, wrapped, created_at)
         SELECT 'p2', 1, 1, wrapped, created_at FROM data_keys WHERE project_id = 'p1' AND version = 1`,
      ),
    )
    expect(await rejection(inTx((tx) => keys.version(tx, 'p2', 1)))).toBeInstanceOf(IntegrityError)
    await inTx((tx) =>
      tx.run(
        `INSERT INTO data_keys (project_id, version, root_version, wrapped, created_at)
         SELECT 'p1', 2, 1, wrapped, created_at FROM data_keys WHERE project_id = 'p1' AND version = 1`,
      ),
    )
    expect(await rejection(inTx((tx) => keys.version(tx, 'p1', 2)))).toBeInstanceOf(IntegrityError)
  })

  it('opens a value sealed under a key a live restore put in place of the one in memory', async () => {
    const before = await addVersion('p1', 1)
    const keys = new DataKeys(root)
    expect((await inTx((tx) => keys.open(tx, 'p1', 1, sealed(before)))).toString()).toBe(canary)
    const after = await addVersion('p1', 1, randomBytes(32))
    expect((await inTx((tx) => keys.open(tx, 'p1', 1, sealed(after)))).toString()).toBe(canary)
    expect((await inTx((tx) => keys.version(tx, 'p1', 1))).key.equals(after)).toBe(true)
  })

  it('refuses a value no key of the database opens, without its text in the error', async () => {
    await addVersion('p1', 1)
    const keys = new DataKeys(root)
    const stranger = sealed(randomBytes(32))
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await rejection(inTx((tx) => keys.open(tx, 'p1', 1, stranger)))
      expect(error).toBeInstanceOf(IntegrityError)
      expect((error as Error).message).not.toContain(canary)
    }
    const k1 = (await inTx((tx) => keys.version(tx, 'p1', 1))).key
    const moved = sealed(k1, 'secret|p1|dev|A|2')
    expect(
      await rejection(inTx((tx) => keys.open(tx, 'p1', 1, { ...moved, label: 'secret|p1|dev|A|1' }))),
    ).toBeInstanceOf(IntegrityError)
  })
})
