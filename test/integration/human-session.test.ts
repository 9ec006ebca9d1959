/**
 * Human accounts and sign-in sessions (issue 19) on real SQLite and PostgreSQL: sign-in under the
 * lockout rules, sessions stored hashed with idle and absolute expiry, sign-out, sessions ended by a
 * password change and by the account's removal, and SQL edits of an account or a session refused.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IntegrityError } from '../../src/errors.js'
import type { VaultContext } from '../../src/server/context.js'
import {
  changeAccountPassword,
  createAccount,
  findAccountByName,
  listAccounts,
  removeAccount,
} from '../../src/server/humans/accounts.js'
import { endSession, readSession, signInHuman, SignInError } from '../../src/server/humans/session.js'
import { findTamperedRows } from '../../src/server/keys/row-mac.js'
import { initialiseVault } from '../../src/server/bootstrap.js'
import { createVaultContext, openVault } from '../../src/server/server.js'
import { createDatabase, postgresOrNull } from '../helpers/components.js'

const postgres = postgresOrNull()
const adapters = [
  { adapter: 'sqlite', available: true },
  { adapter: 'postgres', available: postgres !== null },
]
/** The error an async action throws (fails the test when it resolves). */
async function thrown(action: () => Promise<unknown>): Promise<Error> {
  return action().then(
    () => {
      throw new Error('expected a rejection')
    },
    (error: Error) => error,
  )
}

const adminPassword = 'CANARY-admin-pw-7d1e-long'
const memberPassword = 'CANARY-member-pw-91ab-long'

describe.each(adapters)('human sessions on $adapter', ({ adapter, available }) => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-humans-'))
  let context: VaultContext
  const at = (username: string, password: string, clientAddress = '198.51.100.7') =>
    signInHuman(context, { username, password, clientAddress })

  beforeAll(async () => {
    if (!available) return
    const dbUrl = adapter === 'sqlite' ? `sqlite://${join(dir, 'vault.db')}` : await createDatabase(postgres!)
    const opened = await openVault({ dbUrl, encryptionKey: randomBytes(32) })
    await initialiseVault(opened.driver, opened.keyring, {
      adminUser: 'alice',
      adminPassword,
      project: 'humans',
      environments: ['dev'],
    })
    context = createVaultContext(
      { driver: opened.driver, keyring: opened.keyring, config: { jwtSecret: randomBytes(32) } },
      { lockoutThreshold: 3, lockoutMaxDelaySeconds: 60 },
    )
    await context.driver.transaction((tx) =>
      createAccount(tx, context.keyring.rowMacKey, {
        username: 'bob',
        password: memberPassword,
        role: 'member',
      }),
    )
  }, 60_000)

  afterAll(async () => {
    await context?.driver.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it.skipIf(!available)(
    'signs the init admin in; the session reads back and ends on sign-out',
    async () => {
      const session = await at('alice', adminPassword)
      expect(session).toMatchObject({ username: 'alice', role: 'admin' })
      expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(session.csrfToken).not.toBe('')
      expect(session.expiresAt.getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000)
      expect(await readSession(context, session.id)).toMatchObject({
        username: 'alice',
        role: 'admin',
        csrfToken: session.csrfToken,
      })
      // stored hashed: the id itself is nowhere in the table
      const rows = await context.driver.transaction((tx) => tx.all(`SELECT * FROM human_sessions`))
      expect(JSON.stringify(rows)).not.toContain(session.id)
      expect(rows.map((row) => row.id)).toContain(createHash('sha256').update(session.id).digest('hex'))
      await endSession(context, session.id)
      expect(await readSession(context, session.id)).toBeNull()
      await endSession(context, session.id) // a second sign-out is a no-op
    },
    30_000,
  )

  it.skipIf(!available)(
    'a member signs in with the member role; accounts list without hashes',
    async () => {
      expect(await at('bob', memberPassword)).toMatchObject({ username: 'bob', role: 'member' })
      const accounts = await context.driver.transaction((tx) => listAccounts(tx))
      expect(accounts.map((account) => [account.username, account.role])).toEqual([
        ['alice', 'admin'],
        ['bob', 'member'],
      ])
      expect(JSON.stringify(accounts)).not.toContain('argon2')
    },
    30_000,
  )

  it.skipIf(!available)(
    'an unknown user and a wrong password fail alike, then the source waits',
    async () => {
      const wrong = await thrown(() => at('alice', 'not the password at all', '203.0.113.9'))
      const unknown = await thrown(() => at('nobody', 'not the password at all', '203.0.113.10'))
      for (const error of [wrong, unknown]) {
        expect(error).toBeInstanceOf(SignInError)
        expect((error as SignInError).retryAfterSeconds).toBe(0)
      }
      expect((wrong as Error).message).toBe((unknown as Error).message)
      // two more failures (threshold 3) started together with the right password: the delay they earn is
      // counted before any password is checked, so the right password waits too, from this source only
      const more = [1, 2].map(() => thrown(() => at('alice', 'not the password at all', '203.0.113.9')))
      const throttled = (await thrown(() => at('alice', adminPassword, '203.0.113.9'))) as SignInError
      await Promise.all(more)
      expect(throttled).toBeInstanceOf(SignInError)
      expect(throttled.retryAfterSeconds).toBeGreaterThan(0)
      expect(await at('alice', adminPassword, '203.0.113.77')).toMatchObject({ username: 'alice' })
    },
    60_000,
  )

  it.skipIf(!available)(
    'idle and absolute expiry end a session; malformed ids read as null',
    async () => {
      const session = await at('alice', adminPassword)
      const idle = new Date(Date.now() - (context.timings.session.idleSeconds + 5) * 1000).toISOString()
      await context.driver.transaction((tx) =>
        tx.run(`UPDATE human_sessions SET last_seen_at = ? WHERE id = ?`, [
          idle,
          createHash('sha256').update(session.id).digest('hex'),
        ]),
      )
      expect(await readSession(context, session.id)).toBeNull()
      for (const id of ['', 'x', session.id + 'x', "' OR 1=1 --", randomBytes(32).toString('base64url')])
        expect(await readSession(context, id)).toBeNull()
    },
    30_000,
  )

  it.skipIf(!available)(
    'a password change and a removal end the sessions of the account',
    async () => {
      const [first, second] = [await at('bob', memberPassword), await at('bob', memberPassword)]
      const next = 'CANARY-member-pw-next-5f'
      await context.driver.transaction((tx) =>
        changeAccountPassword(tx, context.keyring.rowMacKey, { username: 'bob', password: next }),
      )
      expect(await readSession(context, first.id)).toBeNull()
      expect(await readSession(context, second.id)).toBeNull()
      expect(await thrown(() => at('bob', memberPassword, '192.0.2.1'))).toBeInstanceOf(SignInError)
      const third = await at('bob', next)
      await context.driver.transaction((tx) => removeAccount(tx, context.keyring.rowMacKey, 'bob'))
      expect(await readSession(context, third.id)).toBeNull()
      expect(await thrown(() => at('bob', next, '192.0.2.2'))).toBeInstanceOf(SignInError)
    },
    60_000,
  )

  it.skipIf(!available)('the last admin cannot be removed', async () => {
    const error = await thrown(() =>
      context.driver.transaction((tx) => removeAccount(tx, context.keyring.rowMacKey, 'alice')),
    )
    expect((error as Error).message).toContain('last admin')
  })

  it.skipIf(!available)(
    'an SQL edit of a role or a session row is caught',
    async () => {
      await context.driver.transaction((tx) =>
        createAccount(tx, context.keyring.rowMacKey, {
          username: 'carol',
          password: memberPassword,
          role: 'member',
        }),
      )
      const session = await at('carol', memberPassword)
      await context.driver.transaction((tx) =>
        tx.run(`UPDATE admins SET role = 'admin' WHERE username = 'carol'`),
      )
      expect(await thrown(() => readSession(context, session.id))).toBeInstanceOf(IntegrityError)
      expect(
        await thrown(() =>
          context.driver.transaction((tx) => findAccountByName(tx, context.keyring.rowMacKey, 'carol')),
        ),
      ).toBeInstanceOf(IntegrityError)
      const tampered = await context.driver.transaction((tx) =>
        findTamperedRows(tx, context.keyring.rowMacKey),
      )
      expect(tampered.map((failure) => failure.table)).toContain('admins')
      await context.driver.transaction((tx) =>
        tx.run(`UPDATE admins SET role = 'member' WHERE username = 'carol'`),
      )
      // a session revived in SQL (ended_at cleared) stays ended
      await endSession(context, session.id)
      await context.driver.transaction((tx) => tx.run(`UPDATE human_sessions SET ended_at = NULL`))
      expect(await readSession(context, session.id)).toBeNull()
      // a session row written in SQL (no valid MAC) is refused
      const forged = randomBytes(32).toString('base64url')
      const now = new Date().toISOString()
      const later = new Date(Date.now() + 3600_000).toISOString()
      await context.driver.transaction(async (tx) => {
        const [carol] = await tx.all(`SELECT id FROM admins WHERE username = 'carol'`)
        await tx.run(
          `INSERT INTO human_sessions (id, user_id, kind, created_at, last_seen_at, expires_at) VALUES (?, ?, 'console', ?, ?, ?)`,
          [createHash('sha256').update(forged).digest('hex'), String(carol!.id), now, now, later],
        )
      })
      expect(await readSession(context, forged)).toBeNull()
    },
    60_000,
  )

  it.skipIf(!available)('no password reaches the audit log', async () => {
    const rows = await context.driver.transaction((tx) => tx.all(`SELECT * FROM audit_events`))
    const text = JSON.stringify(rows)
    for (const canary of [adminPassword, memberPassword, 'not the password at all'])
      expect(text).not.toContain(canary)
    expect(text).toContain('auth.signin')
    expect(text).toContain('user:alice')
  })
})
