/**
 * Administration on behalf of a signed-in human (the console): the same domain functions the admin
 * commands use (identities, environments, webhooks, audit), each in one transaction with its audit event
 * naming the human (`user:NAME`), the request id and the client address. Also the read models the
 * console shows: projects with their environments, and the secrets of an environment with who last
 * changed each one (never a value).
 */
import { NotFoundError } from '../errors.js'
import { appendAudit, listAudit, type AuditRecord } from './audit.js'
import type { InTransaction, VaultContext } from './context.js'
import * as identities from './identities.js'
import { checkStoreIntegrity, integrityProblems } from './integrity.js'
import type { SecretScope } from './secrets.js'
import { audit } from './secret-rows.js'
import type { SqlExecutor } from './store/index.js'
import { redactUrl } from './webhook-target.js'
import { createWebhook, disableWebhook, listWebhooks } from './webhooks.js'

/** Who acts, from where: the audit fields of a human's request. */
export interface HumanActor {
  context: VaultContext
  /** `user:NAME`. */
  actor: string
  requestId: string
  ip: string
}

interface Change {
  project: string
  action: string
  target: string | null
}

async function changeInProject<T>(
  who: HumanActor,
  change: Change,
  work: (tx: SqlExecutor, projectId: string) => Promise<T>,
): Promise<T> {
  return who.context.driver.transaction(async (tx) => {
    const { id } = await identities.requireProject(tx, change.project)
    const result = await work(tx, id)
    await appendAudit(tx, who.context.keyring.auditKey, {
      projectId: id,
      actor: who.actor,
      action: change.action,
      target: change.target,
      result: 'ok',
      requestId: who.requestId,
      ip: who.ip,
    })
    return result
  })
}

/** Every project with its environments, by name. */
export function listProjects(context: VaultContext) {
  return context.driver.transaction(async (tx) => {
    const projects = await tx.all<{ id: string; name: string }>(`SELECT id, name FROM projects ORDER BY name`)
    return Promise.all(
      projects.map(async (project) => ({
        ...project,
        environments: await identities.listEnvironments(tx, project.id),
      })),
    )
  })
}

/** The secrets of an environment: name, version, last change and its author (audited as a list, no values). */
export async function listSecretOverview(at: InTransaction<SecretScope>) {
  const rows = await at.tx.all<{ name: string; version: number; updated_at: string; actor: string }>(
    `SELECT s.name, s.version, s.updated_at, v.actor
     FROM secrets s JOIN secret_versions v ON v.secret_id = s.id AND v.version = s.version
     WHERE s.project_id = ? AND s.environment = ? AND s.deleted = 0 ORDER BY s.name`,
    [at.scope.projectId, at.scope.environment],
  )
  await audit(at, { action: 'secret.list', target: null, detail: `${rows.length} secrets` })
  return rows.map((row) => ({
    name: row.name,
    version: Number(row.version),
    updatedAt: row.updated_at,
    actor: row.actor,
  }))
}

/** Runs `work` on one environment of a project as the human (404 when either does not exist). */
export function inEnvironmentAs<T>(
  who: HumanActor,
  where: { project: string; environment: string },
  work: (at: InTransaction<SecretScope>) => Promise<T>,
): Promise<T> {
  return who.context.driver.transaction(async (tx) => {
    const project = await identities.requireProject(tx, where.project)
    if (!(await identities.environmentExists(tx, project.id, where.environment))) {
      throw new NotFoundError(
        `environment '${where.environment.slice(0, 64)}' does not exist in ${project.name}`,
      )
    }
    const scope: SecretScope = {
      projectId: project.id,
      environment: where.environment,
      actor: who.actor,
      requestId: who.requestId,
      ip: who.ip,
    }
    return work({ context: who.context, tx, scope })
  })
}

/** The identities of a project. */
export function listIdentitiesOf(context: VaultContext, project: string) {
  return context.driver.transaction(async (tx) =>
    identities.listIdentities(tx, (await identities.requireProject(tx, project)).id),
  )
}

/** Creates a machine identity; its client secret is in the result, the only time it exists in clear. */
export function createIdentityAs(
  who: HumanActor,
  request: { project: string; name: string; permissions: string },
): Promise<identities.NewCredentials> {
  return changeInProject(
    who,
    { project: request.project, action: 'identity.create', target: request.name },
    async (tx, projectId) => {
      const environments = (await identities.listEnvironments(tx, projectId)).map((row) => row.slug)
      const permissions = identities.parsePermissions(request.permissions, environments)
      return identities.createIdentity(tx, who.context.keyring, {
        projectId,
        name: request.name,
        permissions,
      })
    },
  )
}

/** Gives an identity a new client secret (its tokens stop working). */
export function rotateIdentitySecretAs(who: HumanActor, project: string, identity: string) {
  return changeInProject(
    who,
    { project, action: 'identity.rotate-secret', target: identity },
    (tx, projectId) => identities.rotateIdentitySecret(tx, who.context.keyring, projectId, identity),
  )
}

/** Revokes an identity and its tokens. */
export function revokeIdentityAs(who: HumanActor, project: string, identity: string) {
  return changeInProject(who, { project, action: 'identity.revoke', target: identity }, (tx, projectId) =>
    identities.revokeIdentity(tx, who.context.keyring, projectId, identity),
  )
}

/** The webhooks of a project (URLs without userinfo). */
export function listWebhooksOf(context: VaultContext, project: string) {
  return context.driver.transaction(async (tx) =>
    listWebhooks(tx, (await identities.requireProject(tx, project)).id),
  )
}

/** Registers a webhook (SSRF-checked); its signing secret is in the result, once. */
export function createWebhookAs(who: HumanActor, project: string, url: string) {
  return changeInProject(
    who,
    { project, action: 'webhook.create', target: redactUrl(url) },
    (tx, projectId) =>
      createWebhook(tx, who.context.keyring, {
        projectId,
        url,
        allowPrivate: who.context.allowPrivateWebhooks,
      }),
  )
}

/** Stops deliveries to a webhook. */
export function disableWebhookAs(who: HumanActor, project: string, id: string) {
  return changeInProject(who, { project, action: 'webhook.delete', target: id }, (tx, projectId) =>
    disableWebhook(tx, who.context.keyring, projectId, id),
  )
}

/** Events of a project after `afterSeq` (reading the log is itself audited). */
export function listAuditAs(
  who: HumanActor,
  request: { project: string; afterSeq: number; limit: number },
): Promise<AuditRecord[]> {
  return changeInProject(
    who,
    { project: request.project, action: 'audit.list', target: null },
    (tx, projectId) => listAudit(tx, { projectId, afterSeq: request.afterSeq, limit: request.limit }),
  )
}

/** The state of the whole store's chain and row MACs, as lines (none when intact). */
export async function auditChainState(context: VaultContext) {
  const report = await checkStoreIntegrity(context.driver, context.keyring)
  return {
    ok: report.ok,
    events: report.audit.events,
    head: report.audit.head,
    problems: integrityProblems(report),
  }
}
