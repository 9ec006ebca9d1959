/**
 * Admin operations on machine identities: create (the client secret is returned once), list, rotate the
 * secret (returned once), revoke. Admins only.
 */
import * as identities from '../identities.js'
import { writeOidcTrust } from '../tokens/oidc-rows.js'
import { parseOidcTrust, type OidcTrust, type OidcTrustInput } from '../tokens/oidc-trust.js'
import { runOperation, type AdminCall } from './call.js'

/**
 * Creates an identity with `permissions` (`dev=read,write;prod=read` or `*=read`) and, when `oidc`
 * names an issuer, the OIDC trust its CI jobs' tokens are exchanged under.
 */
export function createIdentityOp(
  call: AdminCall,
  input: { project: string; name: string; permissions: string; oidc?: OidcTrustInput },
) {
  const trust = input.oidc && hasOidcInput(input.oidc) ? parseOidcTrust(input.oidc) : undefined
  return runOperation(
    call,
    { action: 'identity.create', project: input.project, target: input.name },
    async (tx, projectId) => {
      const environments = (await identities.listEnvironments(tx, projectId!)).map((row) => row.slug)
      const created = await identities.createIdentity(tx, call.vault.keyring, {
        projectId: projectId!,
        name: input.name,
        permissions: identities.parsePermissions(input.permissions, environments),
      })
      if (trust) await writeOidcTrust(tx, call.vault.keyring, created.identity.id, trust)
      return { ...created.identity, clientSecret: created.clientSecret, ...(trust ? { oidc: trust } : {}) }
    },
  )
}

function hasOidcInput(input: OidcTrustInput): boolean {
  return (
    [input.issuer, input.audience, input.subject].some((value) => value !== undefined) ||
    Boolean(input.claims?.length)
  )
}

/** Sets (or with `oidc: null` removes) the OIDC trust of an identity; nothing else of it changes. */
export function updateIdentityOidcOp(
  call: AdminCall,
  input: { project: string; identity: string; oidc: OidcTrustInput | null },
): Promise<{ id: string; clientId: string; oidc: OidcTrust | null }> {
  const trust = input.oidc ? parseOidcTrust(input.oidc) : null
  return runOperation(
    call,
    { action: 'identity.update', project: input.project, target: input.identity },
    async (tx, projectId) => {
      const id = await identities.findIdentity(tx, projectId!, input.identity)
      await writeOidcTrust(tx, call.vault.keyring, id, trust)
      const [row] = await tx.all<{ client_id: string }>(`SELECT client_id FROM identities WHERE id = ?`, [id])
      return { id, clientId: row!.client_id, oidc: trust }
    },
  )
}

/** The identities of a project (no secrets). */
export function listIdentitiesOp(call: AdminCall, input: { project: string }) {
  return runOperation(
    call,
    { action: 'identity.list', project: input.project, read: true },
    (tx, projectId) => identities.listIdentities(tx, projectId!),
  )
}

/** Revokes an identity (by name or client id) and its tokens. */
export function revokeIdentityOp(call: AdminCall, input: { project: string; identity: string }) {
  return runOperation(
    call,
    { action: 'identity.revoke', project: input.project, target: input.identity },
    (tx, projectId) => identities.revokeIdentity(tx, call.vault.keyring, projectId!, input.identity),
  )
}

/** Gives an identity a new client secret (returned once); the old one stops working. */
export function rotateIdentitySecretOp(call: AdminCall, input: { project: string; identity: string }) {
  return runOperation(
    call,
    { action: 'identity.rotate-secret', project: input.project, target: input.identity },
    (tx, projectId) => identities.rotateIdentitySecret(tx, call.vault.keyring, projectId!, input.identity),
  )
}
