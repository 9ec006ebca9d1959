/**
 * Human accounts (the `admins` table): the account `vault server init` creates and the ones an admin
 * adds, each with a role. An admin may do everything; a member may read and write the secrets of every
 * project and environment, and nothing else (no identities, webhooks, environments, users or audit).
 * Every write re-seals the row (role and password hash are covered by the row MAC); a password change
 * or a removal ends the account's sessions in the same transaction.
 */
import { randomUUID } from 'node:crypto'
import { ConflictError, IntegrityError, NotFoundError, UsageError } from '../../errors.js'
import { rowMacMatches, sealRow } from '../keys/row-mac.js'
import type { SqlExecutor } from '../store/index.js'
import { hashPassword, maxPasswordLength, minPasswordLength } from './password-hash.js'

export type HumanRole = 'admin' | 'member'
export const humanRoles: readonly HumanRole[] = ['admin', 'member']

/** User names: letters, digits and `_ . @ -`, starting with a letter or digit, at most 64 characters. */
export const usernamePattern = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/

export interface HumanAccount {
  id: string
  username: string
  role: HumanRole
  createdAt: string
}

/** An account with its password hash, as sign-in needs it. */
export interface StoredAccount extends HumanAccount {
  passwordHash: string
}

type AccountRow = { id: string; username: string; password_hash: string; role: string; created_at: string }

/** Refuses a user name outside the pattern (the message never echoes control characters). */
export function checkUsername(username: string): void {
  if (!usernamePattern.test(username)) {
    throw new UsageError(
      'a user name holds 1 to 64 letters, digits, "_", ".", "@" or "-", starting with a letter or digit',
    )
  }
}

/** Refuses a password that is too short or too long. */
export function checkPassword(password: string): void {
  if (password.length < minPasswordLength)
    throw new UsageError(`the password is too short (at least ${minPasswordLength} characters)`, {
      hint: 'generate one with vault pwgen',
    })
  if (password.length > maxPasswordLength)
    throw new UsageError(`the password is too long (at most ${maxPasswordLength} characters)`)
}

function checkRole(role: string): asserts role is HumanRole {
  if (!humanRoles.includes(role as HumanRole))
    throw new UsageError(`the role is admin or member, not '${role.slice(0, 32)}'`)
}

function toAccount(row: AccountRow): StoredAccount {
  return {
    id: row.id,
    username: row.username,
    role: row.role === 'admin' ? 'admin' : 'member',
    createdAt: row.created_at,
    passwordHash: row.password_hash,
  }
}

/**
 * The account by `where` (id or username), or undefined; a row whose MAC does not match (an SQL edit
 * of its role or password hash) is an IntegrityError, never a valid account.
 */
async function findAccount(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  where: { column: 'id' | 'username'; value: string },
): Promise<StoredAccount | undefined> {
  const [row] = await tx.all<AccountRow & { row_mac: string | null }>(
    `SELECT id, username, password_hash, role, created_at, row_mac FROM admins WHERE ${where.column} = ?`,
    [where.value],
  )
  if (!row) return undefined
  if (!rowMacMatches(rowMacKey, 'admins', row)) {
    throw new IntegrityError(`the account row ${row.id} was changed outside vault (row MAC mismatch)`, {
      hint: 'run vault audit verify; restore from a backup if the change was not yours',
    })
  }
  return toAccount(row)
}

/** The account named `username`, or undefined. */
export function findAccountByName(tx: SqlExecutor, rowMacKey: Buffer, username: string) {
  return findAccount(tx, rowMacKey, { column: 'username', value: username })
}

/** The account with this id, or undefined. */
export function findAccountById(tx: SqlExecutor, rowMacKey: Buffer, id: string) {
  return findAccount(tx, rowMacKey, { column: 'id', value: id })
}

/** Every account, by name (no password hashes). */
export async function listAccounts(tx: SqlExecutor): Promise<HumanAccount[]> {
  const rows = await tx.all<AccountRow>(
    `SELECT id, username, password_hash, role, created_at FROM admins ORDER BY username`,
  )
  return rows.map((row) => {
    const { passwordHash: _, ...account } = toAccount(row)
    return account
  })
}

/** Creates an account (hashing the password); a taken name is a ConflictError. */
export async function createAccount(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  input: { username: string; password: string; role: string; passwordHash?: string },
): Promise<HumanAccount> {
  checkUsername(input.username)
  checkRole(input.role)
  if (input.passwordHash === undefined) checkPassword(input.password)
  const [taken] = await tx.all(`SELECT id FROM admins WHERE username = ?`, [input.username])
  if (taken) throw new ConflictError(`the user '${input.username}' already exists`)
  const account = {
    id: randomUUID(),
    username: input.username,
    role: input.role,
    createdAt: new Date().toISOString(),
  }
  await tx.run(`INSERT INTO admins (id, username, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)`, [
    account.id,
    account.username,
    input.passwordHash ?? (await hashPassword(input.password)),
    account.role,
    account.createdAt,
  ])
  await sealRow(tx, rowMacKey, 'admins', account.id)
  return account
}

async function requireAccount(tx: SqlExecutor, rowMacKey: Buffer, username: string): Promise<StoredAccount> {
  const account = await findAccountByName(tx, rowMacKey, username)
  if (!account) throw new NotFoundError(`no user '${username.slice(0, 64)}'`)
  return account
}

/** Ends every live session of an account (sign-out everywhere). */
export async function endAccountSessions(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  userId: string,
): Promise<number> {
  const ended = new Date().toISOString()
  const rows = await tx.all<{ id: string }>(
    `SELECT id FROM human_sessions WHERE user_id = ? AND ended_at IS NULL`,
    [userId],
  )
  for (const { id } of rows) {
    await tx.run(`UPDATE human_sessions SET ended_at = ? WHERE id = ?`, [ended, id])
    await sealRow(tx, rowMacKey, 'human_sessions', id)
  }
  return rows.length
}

/** Sets a new password and ends every session of the account. */
export async function changeAccountPassword(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  input: { username: string; password: string; passwordHash?: string },
): Promise<HumanAccount> {
  if (input.passwordHash === undefined) checkPassword(input.password)
  const account = await requireAccount(tx, rowMacKey, input.username)
  await tx.run(`UPDATE admins SET password_hash = ? WHERE id = ?`, [
    input.passwordHash ?? (await hashPassword(input.password)),
    account.id,
  ])
  await sealRow(tx, rowMacKey, 'admins', account.id)
  await endAccountSessions(tx, rowMacKey, account.id)
  const { passwordHash: _, ...rest } = account
  return rest
}

/** Removes an account and its sessions; the last admin cannot be removed, however many removals race. */
export async function removeAccount(
  tx: SqlExecutor,
  rowMacKey: Buffer,
  username: string,
): Promise<HumanAccount> {
  // every admin row locked (in one order) first: two admins removing each other take turns, and the
  // second counts what the first left
  const admins = await tx.lockRows<{ id: string }>(`SELECT id FROM admins WHERE role = 'admin' ORDER BY id`)
  const account = await requireAccount(tx, rowMacKey, username)
  if (account.role === 'admin' && admins.filter((admin) => admin.id !== account.id).length === 0)
    throw new ConflictError('the last admin cannot be removed', { hint: 'create another admin first' })
  await tx.run(`DELETE FROM human_sessions WHERE user_id = ?`, [account.id])
  await tx.run(`DELETE FROM admins WHERE id = ?`, [account.id])
  const { passwordHash: _, ...rest } = account
  return rest
}
