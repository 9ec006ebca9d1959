/**
 * Webhooks of a project (admins): the list (URLs without userinfo), registering one (its signing secret
 * shown once, on a `no-store` page) and stopping one after a confirm page.
 */
import type { VaultContext } from '../context.js'
import { createWebhookOp, deleteWebhookOp, listWebhooksOp } from '../operations/webhooks.js'
import type { Resource } from '../http/router.js'
import { checkedForm, requireConfirmation } from './guard.js'
import { pageResponse, redirect } from './headers.js'
import { html } from './html.js'
import { confirmPage, csrfField, layout, notice, table } from './layout.js'
import { paths } from './paths.js'
import { callOf, sessionPage } from './respond.js'

const admin = { adminOnly: true }

/** The webhook resources. */
export function webhookResources(context: VaultContext): Resource[] {
  return [
    {
      path: '/console/projects/:project/webhooks',
      methods: {
        GET: sessionPage(
          context,
          async (request, session) => {
            const project = request.params.project!
            const hooks = await listWebhooksOp(callOf(context, request, session), { project })
            const stopped = request.url.searchParams.get('stopped')
            const rows = hooks.map((hook) => [
              html`<code>${hook.id}</code>`,
              hook.url,
              hook.created_at,
              hook.disabled_at ? `stopped ${hook.disabled_at}` : 'active',
              hook.disabled_at
                ? ''
                : html`<a class="button danger" href="${paths.deleteWebhook(project, hook.id)}">Stop</a>`,
            ])
            return pageResponse(
              200,
              layout({
                title: `${project}: webhooks`,
                session,
                trail: [['Projects', paths.projects]],
                body: html`${notice(stopped ? `Webhook ${stopped} was stopped.` : undefined)}
                  ${table(['Id', 'Receiver', 'Created', 'State', ''], rows, 'No webhooks.')}
                  <h2>New webhook</h2>
                  <form class="stacked" method="post" action="${paths.webhooks(project)}">
                    ${csrfField(session)}
                    <label
                      >Receiver URL
                      <input
                        name="url"
                        type="url"
                        required
                        placeholder="https://hooks.example.com/vault"
                        autocomplete="off"
                    /></label>
                    <p class="hint">
                      Every change of a secret in this project is posted there, signed (header
                      <code>vault-signature</code>).
                    </p>
                    <button type="submit">Add webhook</button>
                  </form>`,
              }),
            )
          },
          admin,
        ),
        POST: sessionPage(
          context,
          async (request, session) => {
            const form = await checkedForm(request, session)
            const project = request.params.project!
            const created = await createWebhookOp(callOf(context, request, session), {
              project,
              url: form.url ?? '',
              allowPrivate: context.allowPrivateWebhooks,
            })
            return pageResponse(
              200,
              layout({
                title: 'Webhook signing secret (shown once)',
                session,
                trail: [
                  ['Projects', paths.projects],
                  [`${project} webhooks`, paths.webhooks(project)],
                ],
                body: html`${created.warnings.map((warning) => notice(warning, 'error'))}
                  <p class="notice">
                    Deliveries to ${created.url} are signed with this secret. Copy it now: it is not shown
                    again.
                  </p>
                  <dl class="credentials">
                    <dt>Webhook id</dt>
                    <dd><code>${created.id}</code></dd>
                    <dt>Signing secret</dt>
                    <dd><code>${created.secret}</code></dd>
                  </dl>
                  <p><a href="${paths.webhooks(project)}">Back to the webhooks</a></p>`,
              }),
            )
          },
          admin,
        ),
      },
    },
    {
      path: '/console/projects/:project/webhooks/:id/delete',
      methods: {
        GET: sessionPage(
          context,
          async (request, session) => {
            const { project, id } = request.params as { project: string; id: string }
            return pageResponse(
              200,
              confirmPage({
                session,
                title: 'Stop this webhook?',
                trail: [
                  ['Projects', paths.projects],
                  [`${project} webhooks`, paths.webhooks(project)],
                ],
                question: `Stop webhook ${id}?`,
                consequence: 'No further deliveries are made to it, pending ones included.',
                action: paths.deleteWebhook(project, id),
                button: 'Stop webhook',
                cancel: paths.webhooks(project),
              }),
            )
          },
          admin,
        ),
        POST: sessionPage(
          context,
          async (request, session) => {
            requireConfirmation(await checkedForm(request, session))
            const { project, id } = request.params as { project: string; id: string }
            await deleteWebhookOp(callOf(context, request, session), { project, id })
            return redirect(`${paths.webhooks(project)}?stopped=${encodeURIComponent(id)}`)
          },
          admin,
        ),
      },
    },
  ]
}
