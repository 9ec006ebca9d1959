/**
 * The key hierarchy (src/server/keys/keyring.ts) on a real, migrated SQLite store: the root key made
 * once and found again by a second load; another ENCRYPTION_KEY refused before anything is written;
 * a sealed value opens only at its own address (fast-check over every way to move it) and never
 * after a byte changed; client-secret hashes bound to secret and identity; a re-wrap moves the root
 * key to a new ENCRYPTION_KEY with the data still readable. Canary values never appear in stored text
 * or error messages.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IntegrityError } from '../../../../src/errors.js'
import { loadKeyring, rewrapRootKey, type ValueAddress } from '../../../../src/server/keys/keyring.js'
import { openStore } from '../../../../src/server/migrations.js'
import type { SqlDriver } from '../../../../src/server/store/index.js'

const canary = 'CANARY-keyring-3f9a'

let dir: string
let store: SqlDriver
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'keyring-'))
  store = await openStore(`sqlite://${join(dir, 'vault.db')}`)
  await store.transaction(async (tx) => {
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

const count = async (table: string) =>
  Number((await store.transaction((tx) => tx.all(`SELECT COUNT(*) AS n FROM ${table}`)))[0]!.n)
const at: ValueAddress = { projectId: 'p1', environment: 'dev', name: 'DB_PASSWORD', version: 1 }
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

describe('loadKeyring', () => {
  it('makes the root key once; a second load with the same key opens what the first sealed', async () => {
    const kek = randomBytes(32)
    const first = await loadKeyring(store, kek)
    const sealed = await store.transaction((tx) => first.sealValue(tx, at, canary))
    expect(sealed.ciphertext).not.toContain(canary)
    expect(await count('root_keys')).toBe(1)
    const second = await loadKeyring(store, kek)
    expect(await count('root_keys')).toBe(1)
    expect(second.fingerprint).toBe(first.fingerprint)
    const [meta] = await store.transaction((tx) =>
      tx.all(`SELECT value FROM meta WHERE key = 'kek_fingerprint'`),
    )
    expect(meta!.value).toBe(first.fingerprint)
    expect(
      await store.transaction((tx) => second.openValue(tx, at, sealed.ciphertext, sealed.keyVersion)),
    ).toBe(canary)
  })

  it('refuses another ENCRYPTION_KEY before writing anything, without showing a key', async () => {
    await loadKeyring(store, randomBytes(32))
    const rows = [await count('meta'), await count('root_keys')]
    const other = randomBytes(32)
    const error = await rejection(loadKeyring(store, other))
    expect(error).toBeInstanceOf(IntegrityError)
    expect((error as Error).message).not.toContain(other.toString('hex'))
    const [meta] = await store.transaction((tx) =>
      tx.all(`SELECT value FROM meta WHERE key = 'kek_fingerprint'`),
    )
    expect((error as Error).message).toContain(`expects fingerprint ${String(meta!.value)}`)
    expect([await count('meta'), await count('root_keys')]).toEqual(rows)
  })
})

describe('Keyring values', () => {
  it('opens a sealed value only at its own project, environment, name and version', async () => {
    const keyring = await loadKeyring(store, randomBytes(32))
    const sealed = await store.transaction((tx) => keyring.sealValue(tx, at, canary))
    const moved = fc
      .record({
        projectId: fc.constantFrom('p1', 'p2'),
        environment: fc.constantFrom('dev', 'prod', 'dev|x'),
        name: fc.constantFrom('DB_PASSWORD', 'DB_PASSWORD2', 'db_password'),
        version: fc.integer({ min: 0, max: 3 }),
      })
      .filter((other) => JSON.stringify(other) !== JSON.stringify(at))
    await fc.assert(
      fc.asyncProperty(moved, async (other) => {
        const error = await rejection(
          store.transaction((tx) => keyring.openValue(tx, other, sealed.ciphertext, sealed.keyVersion)),
        )
        expect(error).toBeInstanceOf(IntegrityError)
        expect(String((error as Error).message)).not.toContain(canary)
      }),
      { numRuns: 40 },
    )
  })

  it('refuses a ciphertext with any bit of its bytes flipped, also in trialOpen', async () => {
    // the bytes are changed, not the text: base64 has aliases (`+` and `-`, trailing bits) that decode
    // to the same bytes, which is no change to what is authenticated
    const keyring = await loadKeyring(store, randomBytes(32))
    const { ciphertext, keyVersion } = await store.transaction((tx) => keyring.sealValue(tx, at, canary))
    const [prefix, encoded] = ciphertext.split('.', 2) as [string, string]
    const raw = Buffer.from(encoded, 'base64')
    expect(raw.toString('base64')).toBe(encoded)
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: raw.length - 1 }),
        fc.integer({ min: 0, max: 7 }),
        async (index, bit) => {
          const flipped = Buffer.from(raw)
          flipped[index] = flipped[index]! ^ (1 << bit)
          const changed = `${prefix}.${flipped.toString('base64')}`
          expect(
            await rejection(store.transaction((tx) => keyring.trialOpen(tx, at, changed, keyVersion))),
          ).toBeInstanceOf(IntegrityError)
          expect(
            await rejection(store.transaction((tx) => keyring.openValue(tx, at, changed, keyVersion))),
          ).toBeInstanceOf(IntegrityError)
        },
      ),
      { numRuns: 60 },
    )
    for (const cut of [raw.subarray(0, 10), raw.subarray(0, 28), Buffer.alloc(0)]) {
      const short = `${prefix}.${cut.toString('base64')}`
      expect(
        await rejection(store.transaction((tx) => keyring.openValue(tx, at, short, keyVersion))),
      ).toBeInstanceOf(IntegrityError)
    }
  })

  it('remembers values it opened, but not those it only trial-opened', async () => {
    const keyring = await loadKeyring(store, randomBytes(32))
    const { ciphertext, keyVersion } = await store.transaction((tx) => keyring.sealValue(tx, at, canary))
    await store.transaction((tx) => keyring.trialOpen(tx, at, ciphertext, keyVersion))
    expect(keyring.openedBefore(at, ciphertext, keyVersion)).toBeUndefined()
    await store.transaction((tx) => keyring.openValue(tx, at, ciphertext, keyVersion))
    expect(keyring.openedBefore(at, ciphertext, keyVersion)).toBe(canary)
    expect(keyring.openedBefore({ ...at, version: 2 }, ciphertext, keyVersion)).toBeUndefined()
  })

  it('binds internal seals to their label', async () => {
    const keyring = await loadKeyring(store, randomBytes(32))
    const sealed = keyring.sealInternal(canary, 'webhook:1')
    expect(sealed).not.toContain(canary)
    expect(keyring.openInternal(sealed, 'webhook:1')).toBe(canary)
    expect(() => keyring.openInternal(sealed, 'webhook:2')).toThrow()
  })
})

describe('Keyring client-secret hashes', () => {
  it('match only the same secret for the same identity, and never throw on a hostile stored hash', async () => {
    const keyring = await loadKeyring(store, randomBytes(32))
    const hash = keyring.hashClientSecret(canary, 'id-1')
    expect(hash).toMatch(/^[0-9a-f]{64}$/)
    expect(hash).not.toContain(canary)
    expect(keyring.clientSecretMatches(canary, hash, 'id-1')).toBe(true)
    expect(keyring.clientSecretMatches(canary, hash, 'id-2')).toBe(false)
    expect(keyring.clientSecretMatches(`${canary}x`, hash, 'id-1')).toBe(false)
    for (const hostile of ['', 'zz', hash.slice(0, 62), `${hash}00`, 'not hex at all'])
      expect(keyring.clientSecretMatches(canary, hostile, 'id-1')).toBe(false)
    // the hash is keyed by the root key: a vault with another root key does not accept it
    const other = await openStore(`sqlite://${join(dir, 'other.db')}`)
    try {
      expect((await loadKeyring(other, randomBytes(32))).clientSecretMatches(canary, hash, 'id-1')).toBe(
        false,
      )
    } finally {
      await other.close()
    }
  })
})

describe('rewrapRootKey', () => {
  it('moves the root key to a new ENCRYPTION_KEY: old key refused, data readable with the new one', async () => {
    const oldKey = randomBytes(32)
    const newKey = randomBytes(32)
    const keyring = await loadKeyring(store, oldKey)
    const sealed = await store.transaction((tx) => keyring.sealValue(tx, at, canary))
    const hash = keyring.hashClientSecret(canary, 'id-1')
    const fingerprint = await rewrapRootKey(store, oldKey, newKey)
    expect(await rejection(loadKeyring(store, oldKey))).toBeInstanceOf(IntegrityError)
    const after = await loadKeyring(store, newKey)
    expect(after.fingerprint).toBe(fingerprint)
    expect(fingerprint).not.toBe(keyring.fingerprint)
    expect(
      await store.transaction((tx) => after.openValue(tx, at, sealed.ciphertext, sealed.keyVersion)),
    ).toBe(canary)
    expect(after.clientSecretMatches(canary, hash, 'id-1')).toBe(true)
  })

  it('refuses a wrong previous key, changing nothing', async () => {
    const oldKey = randomBytes(32)
    await loadKeyring(store, oldKey)
    const [before] = await store.transaction((tx) => tx.all(`SELECT wrapped FROM root_keys`))
    expect(await rejection(rewrapRootKey(store, randomBytes(32), randomBytes(32)))).toBeInstanceOf(
      IntegrityError,
    )
    const [after] = await store.transaction((tx) => tx.all(`SELECT wrapped FROM root_keys`))
    expect(after).toEqual(before)
    await loadKeyring(store, oldKey)
  })
})
