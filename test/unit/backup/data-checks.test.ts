/**
 * The key checks on restored data (src/backup/data-checks.ts) against a real vault's SQLite store, filled
 * over HTTP: every version the test wrote decrypts under the right key (counted by the test, past one
 * 500-row page), another key is refused, and hostile edits to the data (a ciphertext moved to another
 * secret, the key fingerprint deleted) fail with errors that name the secret and never its value.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkStoreData, readEncryptionKey, recordedFingerprint } from '../../../src/backup/data-checks.js'
import { IntegrityError, NotConfiguredError } from '../../../src/errors.js'
import { startSeededVault, type SeededVault } from '../../helpers/seeded-vault.js'
import { deploymentApi } from '../../helpers/vault-server.js'
import { thrown } from '../../helpers/thrown.js'

const canaryA = 'CANARY-data-checks-A-5e1'
const canaryB = 'CANARY-data-checks-B-9d7'
/** Versions written by the test: more than one page (500) of secret_versions. */
const extraVersions = 520

describe('readEncryptionKey', () => {
  it('is NotConfigured when missing or blank', () => {
    for (const text of [undefined, '', '   '])
      expect(thrown(() => readEncryptionKey(text))).toBeInstanceOf(NotConfiguredError)
  })

  it('reads a 64-digit hex key as its 32 bytes, and refuses other text without echoing it', () => {
    const key = randomBytes(32)
    expect(readEncryptionKey(key.toString('hex')).equals(key)).toBe(true)
    const bad = `${key.toString('hex').slice(0, 60)}zzzz`
    const error = thrown(() => readEncryptionKey(bad))
    expect(error).toBeInstanceOf(Error)
    expect(String((error as Error).message)).not.toContain(bad)
  })
})

describe('recordedFingerprint', () => {
  it('finds the kek_fingerprint row among others, else null', () => {
    expect(
      recordedFingerprint({
        meta: [
          { key: 'schema', value: '3' },
          { key: 'kek_fingerprint', value: 'ab12' },
        ],
      }),
    ).toBe('ab12')
    expect(recordedFingerprint({ meta: [{ key: 'schema', value: '3' }] })).toBeNull()
    expect(recordedFingerprint({})).toBeNull()
  })
})

describe('checkStoreData', () => {
  let vault: SeededVault
  const driver = () => vault.server.running.context.driver
  const key = () => Buffer.from(vault.server.encryptionKey, 'hex')

  beforeAll(async () => {
    vault = await startSeededVault({ A_SECRET: canaryA, B_SECRET: canaryB })
    const api = deploymentApi(vault.server, join(vault.work, 'more-state'))
    for (let i = 0; i < extraVersions; i++) await api.putSecret('MANY', `value-${i}`, 'dev')
  }, 120_000)
  afterAll(() => vault?.stop())

  it('decrypts every version the test wrote under the right key', async () => {
    const summary = await checkStoreData(driver(), key())
    expect(summary.secretVersions).toBe(2 + extraVersions)
    expect(summary.auditEvents).toBeGreaterThanOrEqual(2 + extraVersions)
  })

  it('refuses another key', async () => {
    const other = randomBytes(32)
    const error = await checkStoreData(driver(), other).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(Error)
    expect(String((error as Error).message)).not.toContain(other.toString('hex'))
  })

  it('names the secret whose ciphertext was moved from another, and never a value', async () => {
    const [a] = await driver().transaction((tx) =>
      tx.all(
        `SELECT v.secret_id, v.ciphertext FROM secret_versions v JOIN secrets s ON s.id = v.secret_id WHERE s.name = 'A_SECRET'`,
      ),
    )
    const [b] = await driver().transaction((tx) =>
      tx.all(
        `SELECT v.secret_id, v.ciphertext FROM secret_versions v JOIN secrets s ON s.id = v.secret_id WHERE s.name = 'B_SECRET'`,
      ),
    )
    const move = (row: typeof a, ciphertext: unknown) =>
      driver().transaction((tx) =>
        tx.run(`UPDATE secret_versions SET ciphertext = ? WHERE secret_id = ?`, [
          ciphertext as string,
          row!.secret_id as string,
        ]),
      )
    await move(b, a!.ciphertext)
    try {
      const error = await checkStoreData(driver(), key()).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(error).toBeInstanceOf(IntegrityError)
      const message = (error as Error).message
      expect(message).toContain('B_SECRET version 1 (dev)')
      expect(message).not.toContain(canaryA)
      expect(message).not.toContain(canaryB)
    } finally {
      await move(b, b!.ciphertext)
    }
    expect((await checkStoreData(driver(), key())).secretVersions).toBe(2 + extraVersions)
  })

  it('refuses data that records no key fingerprint', async () => {
    const [saved] = await driver().transaction((tx) =>
      tx.all(`SELECT value FROM meta WHERE key = 'kek_fingerprint'`),
    )
    await driver().transaction((tx) => tx.run(`DELETE FROM meta WHERE key = 'kek_fingerprint'`))
    try {
      const error = await checkStoreData(driver(), key()).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(error).toBeInstanceOf(IntegrityError)
      expect((error as Error).message).toContain('no key fingerprint')
    } finally {
      await driver().transaction((tx) =>
        tx.run(`INSERT INTO meta (key, value) VALUES ('kek_fingerprint', ?)`, [saved!.value as string]),
      )
    }
  })
})
