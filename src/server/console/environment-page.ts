/**
 * The page of one environment: its secrets (name, version, last change and who made it, never a value),
 * a reveal button per secret (a POST), and the form that creates a secret; creating one leads to its
 * history page, which shows the new version.
 */
import type { ApiRequest } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { inEnvironmentAs, listSecretOverview } from '../secrets/human-secrets.js'
import type { HumanSession } from '../humans/session.js'
import { listIdentities } from '../identities.js'
import type { Resource } from '../http/router.js'
import { checkedName } from '../routes/secrets.js'
import { writeSecret } from '../secrets/secrets.js'
import type { SqlExecutor } from '../store/index.js'
import { checkedForm } from './guard.js'
import { pageResponse, redirect } from './headers.js'
import { html, type Html } from './html.js'
import { csrfField, layout, table } from './layout.js'
import { paths } from './paths.js'
import { actorOf, sessionPage } from './respond.js'
import { formValue } from './values.js'

/** Where a console request points: its project and environment (from the path). */
export function whereOf(request: ApiRequest) {
  return { project: request.params.project!, environment: request.params.environment! }
}

/** Audit actors as people read them: `identity:<id>` becomes `identity:<name>`. */
export async function actorLabels(tx: SqlExecutor, projectId: string): Promise<(actor: string) => string> {
  const names = new Map(
    (await listIdentities(tx, projectId)).map((identity) => [
      `identity:${identity.id}`,
      `identity:${identity.name}`,
    ]),
  )
  return (actor) => names.get(actor) ?? actor
}

/** A small form with one button that posts (with the CSRF token) to `action`. */
export function postButton(
  session: HumanSession,
  form: { action: string; label: string; fields?: Record<string, string> },
): Html {
  return html`<form class="inline" method="post" action="${form.action}">
    ${csrfField(session)}${Object.entries(form.fields ?? {}).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}<button type="submit">${form.label}</button>
  </form>`
}

/** The environment page and the create-secret form's target. */
export function environmentResources(context: VaultContext): Resource[] {
  return [
    {
      path: '/console/projects/:project/environments/:environment',
      methods: {
        GET: sessionPage(context, async (request, session) => {
          const where = whereOf(request)
          const { secrets, label } = await inEnvironmentAs(
            actorOf(context, request, session),
            where,
            async (at) => ({
              secrets: await listSecretOverview(at),
              label: await actorLabels(at.tx, at.scope.projectId),
            }),
          )
          const rows = secrets.map((secret) => [
            html`<a href="${paths.secret(where.project, where.environment, secret.name)}">${secret.name}</a>`,
            secret.version,
            secret.updatedAt,
            label(secret.actor),
            postButton(session, {
              action: paths.reveal(where.project, where.environment, secret.name),
              label: 'Reveal',
            }),
          ])
          return pageResponse(
            200,
            layout({
              title: `${where.project} / ${where.environment}`,
              session,
              trail: [['Projects', paths.projects]],
              body: html`<h2>Secrets</h2>
                ${table(['Name', 'Version', 'Last change', 'By', ''], rows, 'No secrets in this environment yet.')}
                <h2>New secret</h2>
                <form
                  class="stacked"
                  method="post"
                  action="${paths.secrets(where.project, where.environment)}"
                >
                  ${csrfField(session)}
                  <label
                    >Name
                    <input
                      name="name"
                      required
                      pattern="[A-Z][A-Z0-9_]*"
                      maxlength="256"
                      placeholder="DATABASE_PASSWORD"
                      autocomplete="off"
                  /></label>
                  <label
                    >Value
                    <textarea name="value" rows="3" required autocomplete="off" spellcheck="false"></textarea>
                  </label>
                  <button type="submit">Create secret</button>
                </form>`,
            }),
          )
        }),
      },
    },
    {
      path: '/console/projects/:project/environments/:environment/secrets',
      methods: {
        POST: sessionPage(context, async (request, session) => {
          const form = await checkedForm(request, session)
          const where = whereOf(request)
          const name = checkedName(form.name ?? '')
          const value = formValue(context, form.value)
          const result = await inEnvironmentAs(actorOf(context, request, session), where, (at) =>
            writeSecret(at, { name, value, mode: 'create' }),
          )
          return redirect(
            `${paths.secret(where.project, where.environment, name)}?changed=${result.secret.version}`,
          )
        }),
      },
    },
  ]
}
