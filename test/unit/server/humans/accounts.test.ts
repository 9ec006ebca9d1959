/**
 * Human accounts (src/server/humans/accounts.ts) on a real, migrated SQLite store. User names against a
 * rule the test states character by character (fast-check, hostile strings included); password
 * length bounds; the stored hash is argon2id (checked with node:crypto's own argon2) and never the
 * password; a row edited in SQL is refused; the last admin cannot be removed.
 */
import { argon2Sync, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConflictError, IntegrityError, NotFoundError, UsageError } from '../../../../src/errors.js'
import {
  checkPassword,
  checkUsername,
  createAccount,
  findAccountByName,
  listAccounts,
  removeAccount,
} from '../../../../src/server/humans/accounts.js'
import { maxPasswordLength, minPasswordLength } from '../../../../src/server/humans/password-hash.js'
import { openStore } from '../../../../src/server/migrations.js'
import type { SqlDriver, SqlExecutor } from '../../../../src/server/store/index.js'
import { thrown } from '../../../helpers/thrown.js'

const canary = 'CANARY-accounts-pass-77'

/** The documented rule: 1 to 64 characters of ASCII letters, digits, `_ . @ -`, the first a letter or digit. */
function isValidName(name: string): boolean {
  const alnum = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
  const chars = [...name]
  if (chars.length !== name.length || name.length < 1 || name.length > 64) return false
  return alnum(name[0]!) && chars.every((c) => alnum(c) || '_.@-'.includes(c))
}

describe('checkUsername', () => {
  it('accepts exactly the names of the rule, and never echoes a refused one', () => {
    const nameChar = fc.constantFrom(...'aZ09_.@-', ' ', '\n', '\0', 'é', '/', "'", '\u202e', '𝒜')
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: nameChar, maxLength: 70 }), fc.string({ maxLength: 70 })),
        (name) => {
          if (isValidName(name)) {
            checkUsername(name)
            return
          }
          const error = thrown(() => checkUsername(name))
          expect(error).toBeInstanceOf(UsageError)
          if (name.length > 2) expect(error.message).not.toContain(name)
        },
      ),
      { numRuns: 500 },
    )
    for (const name of ['a', 'A'.repeat(64), 'admin@example.com', '0.x-y_z']) checkUsername(name)
    for (const name of ['', 'A'.repeat(65), 'admin\n', '-admin', '.admin', 'ad min'])
      expect(thrown(() => checkUsername(name))).toBeInstanceOf(UsageError)
  })
})

describe('checkPassword', () => {
  it('accepts lengths from the minimum to the maximum only', () => {
    checkPassword('x'.repeat(minPasswordLength))
    checkPassword('x'.repeat(maxPasswordLength))
    expect(thrown(() => checkPassword('x'.repeat(minPasswordLength - 1)))).toBeInstanceOf(UsageError)
    expect(thrown(() => checkPassword('x'.repeat(maxPasswordLength + 1)))).toBeInstanceOf(UsageError)
    expect(thrown(() => checkPassword(''))).toBeInstanceOf(UsageError)
  })
})

describe('accounts in the store', () => {
  let dir: string
  let store: SqlDriver
  const rowMacKey = randomBytes(32)
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'accounts-'))
    store = await openStore(`sqlite://${join(dir, 'vault.db')}`)
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const inTx = <T>(work: (tx: SqlExecutor) => Promise<T>) => store.transaction(work)
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    )
  /** A member or admin with a pre-made hash (argon2 at 64 MiB is slow; one test hashes for real). */
  const make = (username: string, role: string) =>
    inTx((tx) =>
      createAccount(tx, rowMacKey, { username, password: '', role, passwordHash: '$argon2id$premade' }),
    )

  it('stores an argon2id hash of the password that node:crypto verifies, never the password', async () => {
    const account = await inTx((tx) =>
      createAccount(tx, rowMacKey, { username: 'alice', password: canary, role: 'admin' }),
    )
    expect(account).not.toHaveProperty('passwordHash')
    const [row] = (await inTx((tx) => tx.all(`SELECT * FROM admins WHERE username = 'alice'`))) as [
      Record<string, string>,
    ]
    expect(JSON.stringify(row)).not.toContain(canary)
    const [, params, salt, hash] = /^\$argon2id\$v=19\$(m=\d+,t=\d+,p=\d+)\$([^$]+)\$([^$]+)$/.exec(
      row.password_hash!,
    )!
    const { m, t, p } = Object.fromEntries(params!.split(',').map((pair) => pair.split('='))) as Record<
      string,
      string
    >
    const derive = (message: string) =>
      argon2Sync('argon2id', {
        message,
        nonce: Buffer.from(salt!, 'base64url'),
        memory: Number(m),
        passes: Number(t),
        parallelism: Number(p),
        tagLength: Buffer.from(hash!, 'base64url').length,
      }).toString('base64url')
    expect(derive(canary)).toBe(hash)
    expect(derive(`${canary}x`)).not.toBe(hash)
  })

  it('refuses a taken name, a bad role (cut to 32 characters) and a bad name, writing nothing', async () => {
    await make('bob', 'member')
    expect(await rejection(make('bob', 'admin'))).toBeInstanceOf(ConflictError)
    const role = `owner${'x'.repeat(100)}`
    const error = await rejection(make('carol', role))
    expect(error).toBeInstanceOf(UsageError)
    expect((error as Error).message).toContain(`'${role.slice(0, 32)}'`)
    expect((error as Error).message).not.toContain(role.slice(0, 33))
    expect(await rejection(make('bad name', 'member'))).toBeInstanceOf(UsageError)
    expect((await inTx((tx) => listAccounts(tx))).map((account) => account.username)).toEqual(['bob'])
  })

  it('lists accounts by name without hashes, and finds none for a hostile name', async () => {
    for (const name of ['zed', 'amy', 'Mo']) await make(name, 'member')
    const listed = await inTx((tx) => listAccounts(tx))
    expect(listed.map((account) => account.username)).toEqual(['Mo', 'amy', 'zed'])
    for (const account of listed)
      expect(Object.keys(account).sort()).toEqual(['createdAt', 'id', 'role', 'username'])
    expect(await inTx((tx) => findAccountByName(tx, rowMacKey, "amy' OR '1'='1"))).toBeUndefined()
  })

  it('refuses an account whose role was raised in SQL', async () => {
    await make('mallory', 'member')
    await inTx((tx) => tx.run(`UPDATE admins SET role = 'admin' WHERE username = 'mallory'`))
    expect(await rejection(inTx((tx) => findAccountByName(tx, rowMacKey, 'mallory')))).toBeInstanceOf(
      IntegrityError,
    )
  })

  it('removes members and admins, but never the last admin', async () => {
    await make('root1', 'admin')
    await make('member1', 'member')
    expect(await rejection(inTx((tx) => removeAccount(tx, rowMacKey, 'root1')))).toBeInstanceOf(ConflictError)
    await inTx((tx) => removeAccount(tx, rowMacKey, 'member1'))
    await make('root2', 'admin')
    await inTx((tx) => removeAccount(tx, rowMacKey, 'root1'))
    expect(await rejection(inTx((tx) => removeAccount(tx, rowMacKey, 'root2')))).toBeInstanceOf(ConflictError)
    expect(await rejection(inTx((tx) => removeAccount(tx, rowMacKey, 'nobody')))).toBeInstanceOf(
      NotFoundError,
    )
    expect((await inTx((tx) => listAccounts(tx))).map((account) => account.username)).toEqual(['root2'])
  })
})
