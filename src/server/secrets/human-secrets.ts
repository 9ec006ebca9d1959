/**
 * Secrets on behalf of a signed-in human (the console): the scope of an environment with the human as
 * the audit actor (`user:NAME`, request id, client address), for the operations of secrets.ts, and the
 * read model of the environment page: each live secret with its version, last change and who made it
 * (never a value). The admin operations (identities, webhooks, audit) are in operations/.
 */
import { NotFoundError } from '../../errors.js'
import type { InTransaction, VaultContext } from '../context.js'
import * as identities from '../identities.js'
import type { SecretScope } from './secrets.js'
import { audit } from './secret-rows.js'

/** Who acts, from where: the audit fields of a human's request. */
export interface HumanActor {
  context: VaultContext
  /** `user:NAME`. */
  actor: string
  requestId: string
  ip: string
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
