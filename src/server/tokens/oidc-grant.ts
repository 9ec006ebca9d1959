/**
 * The JWT-bearer grant (RFC 7523 section 2.1) with a CI job's OIDC token: the identity named by
 * `client_id` must trust the token's issuer, audience, subject and claims (oidc.ts), and the token's
 * (issuer, jti) must not have been exchanged before. The issuer's keys are fetched outside any
 * transaction; the identity is read again when the token is issued, so a trust changed or an
 * identity revoked in between wins. The audit event names the token's iss, sub and jti, never the
 * token.
 */
import { VaultError } from '../../errors.js'
import { appendAudit } from '../audit/audit.js'
import type { VaultContext } from '../context.js'
import type { Origin } from '../http/api.js'
import type { IssuerKeys } from './issuer-keys.js'
import { clockSkewSeconds, OidcRefusal, verifyAssertion } from './oidc.js'
import { findOidcIdentity, recordUsedToken } from './oidc-rows.js'
import { insertAccessToken } from './token-rows.js'
import { signAccessToken } from './tokens.js'

export const jwtBearerGrantType = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

/** A used jti is kept this long past the token's expiry (and its skew), so pruning never races a use. */
const usedTokenMarginSeconds = 300

/** The identity was not found, is revoked, trusts no OIDC issuer, or its row failed its MAC. */
export class OidcClientRefusal extends VaultError {
  override name = 'OidcClientRefusal'
  override readonly code: string = 'ERR_OIDC_CLIENT'
}

/**
 * Exchanges `assertion` for an access token of identity `clientId`; throws OidcClientRefusal,
 * OidcRefusal (the check that failed) or IssuerUnavailableError. `identity` is set once it is known,
 * for the failed-authentication log.
 */
export async function exchangeAssertion(
  context: VaultContext,
  keys: IssuerKeys,
  request: { clientId: string; assertion: string; origin: Origin },
  known: { identity?: { id: string; projectId: string } } = {},
): Promise<string> {
  const { keyring, limits } = context
  const found = await context.driver.transaction((tx) =>
    findOidcIdentity(tx, keyring.rowMacKey, request.clientId),
  )
  if (found) known.identity = found
  if (!found || found.revoked) throw new OidcClientRefusal('no such identity, or it is revoked')
  if (!found.sealed) throw new OidcClientRefusal("the identity's row fails its integrity check")
  if (!found.trust) throw new OidcClientRefusal('the identity trusts no OIDC issuer')
  const trust = found.trust
  const verified = await verifyAssertion(request.assertion, trust, keys)
  return context.driver.transaction(async (tx) => {
    const current = await findOidcIdentity(tx, keyring.rowMacKey, request.clientId)
    if (!current || current.revoked || !current.sealed || current.storedTrust !== found.storedTrust) {
      throw new OidcClientRefusal('the identity changed while its token was checked')
    }
    const now = new Date()
    const expiresAt = new Date((verified.exp + 2 * clockSkewSeconds + usedTokenMarginSeconds) * 1000)
    if (!(await recordUsedToken(tx, { issuer: verified.iss, jti: verified.jti, expiresAt }, now))) {
      throw new OidcRefusal('replay', 'this token (its jti) was already exchanged')
    }
    const signed = await signAccessToken(
      context.jwtSecret,
      { identityId: current.id, projectId: current.projectId },
      limits.tokenTtlSeconds,
    )
    await insertAccessToken(tx, keyring.rowMacKey, { identity: current, claims: signed.claims })
    await appendAudit(tx, keyring.auditKey, {
      projectId: current.projectId,
      actor: `identity:${current.id}`,
      action: 'auth.login',
      result: 'ok',
      requestId: request.origin.requestId,
      ip: request.origin.ip,
      detail: `oidc ${JSON.stringify({ iss: verified.iss, sub: verified.sub, jti: verified.jti })}`,
    })
    return signed.token
  })
}
