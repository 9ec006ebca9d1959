/**
 * The names behind `identity:ID` audit actors, read from a real SQLite store: every id of a long list
 * (more than one batch of 500), ids that are SQL or object keys taken as data, other actors left alone.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identityNames } from '../../../src/server/identity-names.js'
import { openStore } from '../../../src/server/migrations.js'
import type { SqlDriver, SqlExecutor } from '../../../src/server/store/index.js'

const dir = mkdtempSync(join(tmpdir(), 'identity-names-'))
let driver: SqlDriver
const hostileIds = ["x'); DROP TABLE identities;--", '__proto__', 'constructor', '?', 'identity:nested']

beforeAll(async () => {
  driver = await openStore(`sqlite://${join(dir, 'vault.db')}`)
  await driver.transaction(async (tx) => {
    const at = '2026-01-01T00:00:00Z'
    await tx.run(`INSERT INTO projects (id, name, created_at) VALUES ('p', 'p', ?)`, [at])
    const ids = [...Array.from({ length: 1200 }, (_, index) => `id-${index}`), ...hostileIds]
    for (const [index, id] of ids.entries())
      await tx.run(
        `INSERT INTO identities (id, project_id, name, client_id, secret_hash, permissions, created_at)
         VALUES (?, 'p', ?, ?, 'h', '[]', ?)`,
        [id, `name of ${id}`, `client-${index}`, at],
      )
  })
})
afterAll(async () => {
  await driver.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('identityNames', () => {
  it('names every identity actor of a long list, across batches', async () => {
    const actors = [
      ...Array.from({ length: 1200 }, (_, index) => `identity:id-${1199 - index}`),
      'identity:id-7',
      'user:alice',
      'admin:cli',
      'identity:missing',
    ]
    const names = await driver.transaction((tx) => identityNames(tx, actors))
    expect(names.size).toBe(1200)
    expect(names.get('identity:id-0')).toBe('name of id-0')
    expect(names.get('identity:id-1199')).toBe('name of id-1199')
    expect(names.has('user:alice')).toBe(false)
    expect(names.has('identity:missing')).toBe(false)
  })

  it('takes ids that are SQL or object keys as data', async () => {
    const names = await driver.transaction((tx) =>
      identityNames(
        tx,
        hostileIds.map((id) => `identity:${id}`),
      ),
    )
    expect([...names.entries()].sort()).toEqual(
      hostileIds.map((id) => [`identity:${id}`, `name of ${id}`]).sort(),
    )
    const count = await driver.transaction((tx) => tx.all(`SELECT COUNT(*) AS n FROM identities`))
    expect(Number(count[0]!.n)).toBe(1200 + hostileIds.length)
  })

  it('asks nothing without identity actors, and at most 500 ids a query', async () => {
    const sizes: number[] = []
    const recording = (tx: SqlExecutor): SqlExecutor =>
      new Proxy(tx, {
        get: (target, property) =>
          property === 'all'
            ? (sql: string, params: unknown[]) => {
                sizes.push(params.length)
                return target.all(sql, params as never)
              }
            : Reflect.get(target, property),
      })
    await driver.transaction((tx) => identityNames(recording(tx), ['user:a', 'admin:cli']))
    expect(sizes).toEqual([])
    await driver.transaction((tx) =>
      identityNames(
        recording(tx),
        Array.from({ length: 1001 }, (_, index) => `identity:id-${index}`),
      ),
    )
    expect(sizes).toEqual([500, 500, 1])
  })
})
