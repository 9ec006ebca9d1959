/**
 * Human sign-in sessions (src/server/humans/session.ts) on a real, initialised vault (SQLite, the admin
 * account `vault server init` makes). Right and wrong passwords, unknown and hostile user names (one
 * answer for all, no account enumeration), the throttle after repeated failures, session ids that
 * are not ids, the kind of a session, sign-out, a password change, CSRF tokens. The audit log is read
 * back with SQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { changeAccountPassword } from '../../../../src/server/humans/accounts.js'
import { hashPassword } from '../../../../src/server/humans/password-hash.js'
import { sealRow } from '../../../../src/server/keys/row-mac.js'
import {
  csrfTokenMatches,
  endSession,
  openSession,
  readSession,
  signInHuman,
  SignInError,
} from '../../../../src/server/humans/session.js'
import { startVaultServer, type TestVault } from '../../../helpers/vault-server.js'

const password = 'correct horse battery staple'
let vault: TestVault
let addresses = 0
const context = () => vault.running.context
/** A fresh source address per attempt series, so that the throttle of one test does not reach another. */
const nextAddress = () => `192.0.2.${++addresses}`

beforeAll(async () => {
  vault = await startVaultServer({})
}, 60_000)
afterAll(() => vault?.stop())

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

describe('signInHuman and readSession', () => {
  it('opens a console session for the right password, read back by its id', async () => {
    const session = await signInHuman(context(), {
      username: 'admin',
      password,
      clientAddress: nextAddress(),
    })
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(session.id, 'base64url')).toHaveLength(32)
    expect(session.username).toBe('admin')
    expect(session.expiresAt.getTime()).toBeGreaterThan(Date.now())
    const read = await readSession(context(), session.id)
    expect(read).toMatchObject({ id: session.id, username: 'admin', csrfToken: session.csrfToken })
    expect(await readSession(context(), session.id, 'cli')).toBeNull()
    const [row] = await context().driver.transaction((tx) =>
      tx.all(
        `SELECT actor, target, result FROM audit_events WHERE action = 'auth.signin' ORDER BY seq DESC LIMIT 1`,
      ),
    )
    expect(row).toEqual({ actor: 'user:admin', target: 'console', result: 'ok' })
  })

  it('gives one answer for a wrong password, an unknown user and hostile names', async () => {
    const attempts = [
      { username: 'admin', password: 'wrong' },
      { username: 'nobody', password },
      { username: "admin' OR '1'='1", password },
      { username: 'admin\n', password },
      { username: '', password: '' },
      { username: 'admin', password: `${password}${'x'.repeat(100_000)}` },
    ]
    for (const attempt of attempts) {
      const error = await refusal(signInHuman(context(), { ...attempt, clientAddress: nextAddress() }))
      expect(error).toBeInstanceOf(SignInError)
      expect([attempt.username, (error as Error).message]).toEqual([
        attempt.username,
        'wrong user name or password',
      ])
      expect((error as SignInError).retryAfterSeconds).toBe(0)
    }
  })

  it('throttles a source after repeated failures, then refuses even the right password', async () => {
    const clientAddress = nextAddress()
    let throttled: SignInError | undefined
    for (let attempt = 0; attempt < 30 && !throttled; attempt++) {
      const error = await refusal(
        signInHuman(context(), { username: 'admin', password: 'wrong', clientAddress }),
      )
      expect(error).toBeInstanceOf(SignInError)
      if ((error as SignInError).retryAfterSeconds > 0) throttled = error as SignInError
    }
    expect(throttled).toBeDefined()
    const right = await refusal(signInHuman(context(), { username: 'admin', password, clientAddress }))
    expect(right).toBeInstanceOf(SignInError)
    expect((right as SignInError).retryAfterSeconds).toBeGreaterThan(0)
    // another source is not held back
    await signInHuman(context(), { username: 'admin', password, clientAddress: nextAddress() })
  })

  it('reads no session for ids that are not ids, or unknown ones', async () => {
    const hostile = [
      '',
      'x',
      'A'.repeat(42),
      'A'.repeat(44),
      "' OR 1=1 --",
      'A'.repeat(42) + '=',
      'A'.repeat(43),
    ]
    for (const id of hostile) expect([id, await readSession(context(), id)]).toEqual([id, null])
    expect(await readSession(context(), 42 as unknown as string)).toBeNull()
  })
})

describe('endSession, password change and CSRF', () => {
  it('ends a session once (an audit event), and ending it again or an unknown id is a no-op', async () => {
    const session = await openSession(
      context(),
      { username: 'admin', password, clientAddress: nextAddress() },
      'cli',
    )
    expect(await readSession(context(), session.id, 'cli')).not.toBeNull()
    const count = async () =>
      Number(
        (
          await context().driver.transaction((tx) =>
            tx.all(`SELECT COUNT(*) AS n FROM audit_events WHERE action = 'auth.signout'`),
          )
        )[0]!.n,
      )
    const before = await count()
    await endSession(context(), session.id)
    expect(await readSession(context(), session.id, 'cli')).toBeNull()
    await endSession(context(), session.id)
    await endSession(context(), 'B'.repeat(43))
    await endSession(context(), 'not an id')
    expect(await count()).toBe(before + 1)
  })

  it('ends every session of an account whose password changed', async () => {
    const session = await signInHuman(context(), {
      username: 'admin',
      password,
      clientAddress: nextAddress(),
    })
    const next = 'another long enough passphrase'
    await context().driver.transaction((tx) =>
      changeAccountPassword(tx, context().keyring.rowMacKey, { username: 'admin', password: next }),
    )
    try {
      expect(await readSession(context(), session.id)).toBeNull()
      expect(
        await refusal(signInHuman(context(), { username: 'admin', password, clientAddress: nextAddress() })),
      ).toBeInstanceOf(SignInError)
    } finally {
      await context().driver.transaction((tx) =>
        changeAccountPassword(tx, context().keyring.rowMacKey, { username: 'admin', password }),
      )
    }
  })

  it('reads no session once the password changed, even where its row was not ended', async () => {
    const session = await signInHuman(context(), {
      username: 'admin',
      password,
      clientAddress: nextAddress(),
    })
    const { rowMacKey } = context().keyring
    const [account] = (await context().driver.transaction((tx) =>
      tx.all(`SELECT id, password_hash FROM admins WHERE username = 'admin'`),
    )) as [{ id: string; password_hash: string }]
    const setHash = (hash: string) =>
      context().driver.transaction(async (tx) => {
        await tx.run(`UPDATE admins SET password_hash = ? WHERE id = ?`, [hash, account.id])
        await sealRow(tx, rowMacKey, 'admins', account.id)
      })
    await setHash(await hashPassword('a password set by another path'))
    try {
      expect(await readSession(context(), session.id)).toBeNull()
    } finally {
      await setHash(account.password_hash)
    }
  })

  it('matches a session’s own CSRF token only', async () => {
    const one = await signInHuman(context(), { username: 'admin', password, clientAddress: nextAddress() })
    const two = await signInHuman(context(), { username: 'admin', password, clientAddress: nextAddress() })
    expect(one.csrfToken).not.toBe(two.csrfToken)
    expect(csrfTokenMatches(one, one.csrfToken)).toBe(true)
    for (const token of [two.csrfToken, '', one.csrfToken.slice(1), `${one.csrfToken}x`, one.id])
      expect(csrfTokenMatches(one, token)).toBe(false)
  })
})
