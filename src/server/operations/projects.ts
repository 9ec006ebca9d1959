/**
 * Admin operations on projects and environments: list and create. Anyone signed in may list (a member
 * reads and writes secrets everywhere, so it needs to see where); creating is for admins.
 */
import { createEnvironment, createProject, listEnvironments } from '../identities.js'
import { runOperation, type AdminCall } from './call.js'

export interface ProjectSummary {
  id: string
  name: string
  createdAt: string
  environments: string[]
}

/** Every project with its environments' slugs, by name. */
export async function listProjectsOp(call: AdminCall): Promise<ProjectSummary[]> {
  return runOperation(call, { action: 'project.list', read: true, membersMay: true }, async (tx) => {
    const rows = await tx.all<{ id: string; name: string; created_at: string }>(
      `SELECT id, name, created_at FROM projects ORDER BY name`,
    )
    const projects: ProjectSummary[] = []
    for (const row of rows) {
      const environments = (await listEnvironments(tx, row.id)).map((environment) => environment.slug)
      projects.push({ id: row.id, name: row.name, createdAt: row.created_at, environments })
    }
    return projects
  })
}

/** Creates a project with its environments (admins). */
export function createProjectOp(call: AdminCall, input: { name: string; environments: string[] }) {
  return runOperation(call, { action: 'project.create', target: input.name }, async (tx) => {
    const created = await createProject(tx, input.name, [...new Set(input.environments)])
    return { ...created, environments: [...new Set(input.environments)] }
  })
}

/** The environments of a project (anyone signed in). */
export function listEnvironmentsOp(call: AdminCall, input: { project: string }) {
  return runOperation(
    call,
    { action: 'environment.list', project: input.project, read: true, membersMay: true },
    (tx, projectId) => listEnvironments(tx, projectId!),
  )
}

/** Creates an environment in a project (admins). */
export function createEnvironmentOp(
  call: AdminCall,
  input: { project: string; slug: string; name?: string },
) {
  return runOperation(
    call,
    { action: 'environment.create', project: input.project, target: input.slug },
    (tx, projectId) => createEnvironment(tx, projectId!, input.slug, input.name),
  )
}
