/**
 * Admin operations on human accounts: create (role admin or member), list, remove, change a password.
 * Admins only, except that everyone may change their own password. Passwords are hashed before the
 * transaction (argon2id takes a while) and never reach an audit event.
 */
import {
  checkPassword,
  checkUsername,
  changeAccountPassword,
  createAccount,
  listAccounts,
  removeAccount,
} from '../humans/accounts.js'
import { hashPassword } from '../humans/password-hash.js'
import { requireAdmin, runOperation, type AdminCall } from './call.js'

/** Creates a human account. */
export async function createUserOp(
  call: AdminCall,
  input: { username: string; password: string; role: string },
) {
  const operation = { action: 'user.create', target: input.username }
  await requireAdmin(call, operation) // before the costly hash: a member cannot make the server hash
  checkUsername(input.username)
  checkPassword(input.password)
  const passwordHash = await hashPassword(input.password)
  return runOperation(call, operation, (tx) =>
    createAccount(tx, call.vault.keyring.rowMacKey, { ...input, passwordHash }),
  )
}

/** Every human account with its role (no password hashes). */
export function listUsersOp(call: AdminCall) {
  return runOperation(call, { action: 'user.list', read: true }, (tx) => listAccounts(tx))
}

/** Removes a human account and ends its sessions (the last admin stays). */
export function removeUserOp(call: AdminCall, input: { username: string }) {
  return runOperation(call, { action: 'user.remove', target: input.username }, (tx) =>
    removeAccount(tx, call.vault.keyring.rowMacKey, input.username),
  )
}

/** Sets a new password (an admin for anyone, a member for itself) and ends the account's sessions. */
export async function changePasswordOp(call: AdminCall, input: { username: string; password: string }) {
  const operation = { action: 'user.password', target: input.username }
  const own = call.actor.username === input.username
  if (!own) await requireAdmin(call, operation)
  checkPassword(input.password)
  const passwordHash = await hashPassword(input.password)
  return runOperation(call, { ...operation, membersMay: true }, (tx) =>
    changeAccountPassword(tx, call.vault.keyring.rowMacKey, { ...input, passwordHash }),
  )
}
