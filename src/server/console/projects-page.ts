/** The projects page: every project with its environments, and (for admins) its identities, webhooks and audit. */
import type { VaultContext } from '../context.js'
import { listProjectsOp } from '../operations/projects.js'
import type { Resource } from '../http/router.js'
import { pageResponse } from './headers.js'
import { html } from './html.js'
import { layout } from './layout.js'
import { paths } from './paths.js'
import { callOf, sessionPage } from './respond.js'

/** The projects resource. */
export function projectResources(context: VaultContext): Resource[] {
  return [
    {
      path: paths.projects,
      methods: {
        GET: sessionPage(context, async (request, session) => {
          const projects = await listProjectsOp(callOf(context, request, session))
          const admin = session.role === 'admin'
          return pageResponse(
            200,
            layout({
              title: 'Projects',
              session,
              body: projects.length
                ? html`${projects.map(
                    (project) =>
                      html`<section class="project">
                        <h2>${project.name}</h2>
                        <p>
                          Environments:
                          ${project.environments.map(
                            (environment) =>
                              html`<a class="chip" href="${paths.environment(project.name, environment)}"
                                >${environment}</a
                              > `,
                          )}
                        </p>
                        ${
                          admin
                            ? html`<p class="links">
                                <a href="${paths.identities(project.name)}">Machine identities</a> ·
                                <a href="${paths.webhooks(project.name)}">Webhooks</a> ·
                                <a href="${paths.audit(project.name)}">Audit log</a>
                              </p>`
                            : ''
                        }
                      </section>`,
                  )}`
                : html`<p class="empty">No projects yet: create one with <code>vault server init</code>.</p>`,
            }),
          )
        }),
      },
    },
  ]
}
