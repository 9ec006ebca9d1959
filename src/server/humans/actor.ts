/**
 * Who performs an admin operation: a signed-in human (`user:NAME`, with the account's role) or the
 * admin CLI on the vault host (`admin:cli`, which holds ENCRYPTION_KEY and so may do everything). The
 * operations in src/server/operations/ take one of these and audit it as the actor.
 */
import { AuthError } from '../../errors.js'
import type { HumanRole } from './accounts.js'
import { humanActorLabel } from './session.js'

export interface Actor {
  /** The audit actor: `user:alice` or `admin:cli`. */
  label: string
  role: HumanRole
  /** The signed-in account's name (undefined for the host's admin CLI). */
  username?: string
}

/** Where a request came from, for the audit event. */
export interface ActorOrigin {
  requestId?: string
  ip?: string
}

/** A refused operation: the actor's role does not allow it (403 over the API, exit 4 in the CLI). */
export class ForbiddenError extends AuthError {
  override name = 'ForbiddenError'
  override readonly code: string = 'ERR_FORBIDDEN'
}

/** The admin CLI on the vault host (it holds DB_URL and ENCRYPTION_KEY). */
export const hostAdmin: Actor = { label: 'admin:cli', role: 'admin' }

/** Acting as a signed-in human (a console session or a CLI token's session). */
export function actingAs(human: { username: string; role: HumanRole }): Actor {
  return { label: humanActorLabel(human), role: human.role, username: human.username }
}
