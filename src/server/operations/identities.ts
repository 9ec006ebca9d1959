/**
 * Admin operations on machine identities: create (the client secret is returned once), list, rotate the
 * secret (returned once), revoke. Admins only.
 */
import * as identities from '../identities.js'
import { runOperation, type AdminCall } from './call.js'

/** Creates an identity with `permissions` (`dev=read,write;prod=read` or `*=read`). */
export function createIdentityOp(
  call: AdminCall,
  input: { project: string; name: string; permissions: string },
) {
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
      return { ...created.identity, clientSecret: created.clientSecret }
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
