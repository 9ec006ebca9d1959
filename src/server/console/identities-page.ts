/**
 * Machine identities of a project (admins): the list, the create form (the new client secret is shown
 * once, on a `no-store` page), rotating a secret and revoking an identity, each after a confirm page.
 */
import type { ApiRequest } from '../http/api.js'
import type { VaultContext } from '../context.js'
import {
  createIdentityOp,
  listIdentitiesOp,
  revokeIdentityOp,
  rotateIdentitySecretOp,
} from '../operations/identities.js'
import type { HumanSession } from '../humans/session.js'
import type { Resource } from '../http/router.js'
import { checkedForm, requireConfirmation } from './guard.js'
import { pageResponse, redirect } from './headers.js'
import { html } from './html.js'
import { confirmPage, csrfField, layout, notice, table } from './layout.js'
import { paths } from './paths.js'
import { callOf, sessionPage } from './respond.js'

const trailOf = (project: string): [string, string][] => [
  ['Projects', paths.projects],
  [`${project} identities`, paths.identities(project)],
]

function shownOnce(
  session: HumanSession,
  project: string,
  credentials: { clientId: string; clientSecret: string },
) {
  return pageResponse(
    200,
    layout({
      title: 'Client secret (shown once)',
      session,
      trail: trailOf(project),
      body: html`<p class="notice">
          Copy the secret now: the vault keeps only a hash of it and cannot show it again.
        </p>
        <dl class="credentials">
          <dt>VAULT_CLIENT_ID</dt>
          <dd><code id="client-id">${credentials.clientId}</code></dd>
          <dt>VAULT_CLIENT_SECRET</dt>
          <dd><code id="client-secret">${credentials.clientSecret}</code></dd>
        </dl>
        <p><a href="${paths.identities(project)}">Back to the identities</a></p>`,
    }),
  )
}

async function listPage(context: VaultContext, request: ApiRequest, session: HumanSession) {
  const project = request.params.project!
  const identities = await listIdentitiesOp(callOf(context, request, session), { project })
  const done = request.url.searchParams.get('revoked')
  const rows = identities.map((identity) => [
    identity.name,
    html`<code>${identity.clientId}</code>`,
    Object.entries(identity.permissions)
      .map(([environment, levels]) => `${environment}=${levels.join(',')}`)
      .join('; '),
    identity.createdAt,
    identity.revokedAt ? `revoked ${identity.revokedAt}` : 'active',
    identity.revokedAt
      ? ''
      : html`<a class="button" href="${paths.rotateIdentity(project, identity.name)}">Rotate secret</a>
          <a class="button danger" href="${paths.revokeIdentity(project, identity.name)}">Revoke</a>`,
  ])
  return pageResponse(
    200,
    layout({
      title: `${project}: machine identities`,
      session,
      trail: [['Projects', paths.projects]],
      body: html`${notice(done ? `${done} was revoked; its tokens stopped working.` : undefined)}
        ${table(['Name', 'Client id', 'Permissions', 'Created', 'State', ''], rows, 'No identities.')}
        <h2>New identity</h2>
        <form class="stacked" method="post" action="${paths.identities(project)}">
          ${csrfField(session)}
          <label
            >Name
            <input
              name="name"
              required
              pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]{0,62}"
              autocomplete="off"
              placeholder="ci-deploy"
          /></label>
          <label>Permissions <input name="permissions" required value="dev=read" autocomplete="off" /></label>
          <p class="hint">
            As in <code>vault identity create</code>: <code>dev=read,write;prod=read</code> or
            <code>*=read</code>.
          </p>
          <button type="submit">Create identity</button>
        </form>`,
    }),
  )
}

function confirmFor(kind: 'rotate' | 'revoke') {
  return (context: VaultContext) =>
    sessionPage(
      context,
      async (request, session) => {
        const { project, identity } = request.params as { project: string; identity: string }
        const rotate = kind === 'rotate'
        return pageResponse(
          200,
          confirmPage({
            session,
            title: rotate ? `Rotate the secret of ${identity}?` : `Revoke ${identity}?`,
            trail: trailOf(project),
            question: rotate ? `Give ${identity} a new client secret?` : `Revoke the identity ${identity}?`,
            consequence: rotate
              ? 'Its current secret and every token it holds stop working at once; the new secret is shown once.'
              : 'It can no longer sign in, and every token it holds stops working at once. This cannot be undone.',
            action: rotate
              ? paths.rotateIdentity(project, identity)
              : paths.revokeIdentity(project, identity),
            button: rotate ? 'Rotate secret' : `Revoke ${identity}`,
            cancel: paths.identities(project),
          }),
        )
      },
      { adminOnly: true },
    )
}

/** The identity resources. */
export function identityResources(context: VaultContext): Resource[] {
  const admin = { adminOnly: true }
  return [
    {
      path: '/console/projects/:project/identities',
      methods: {
        GET: sessionPage(context, (request, session) => listPage(context, request, session), admin),
        POST: sessionPage(
          context,
          async (request, session) => {
            const form = await checkedForm(request, session)
            const project = request.params.project!
            const created = await createIdentityOp(callOf(context, request, session), {
              project,
              name: form.name ?? '',
              permissions: form.permissions ?? '',
            })
            return shownOnce(session, project, {
              clientId: created.clientId,
              clientSecret: created.clientSecret,
            })
          },
          admin,
        ),
      },
    },
    {
      path: '/console/projects/:project/identities/:identity/rotate',
      methods: {
        GET: confirmFor('rotate')(context),
        POST: sessionPage(
          context,
          async (request, session) => {
            requireConfirmation(await checkedForm(request, session))
            const { project, identity } = request.params as { project: string; identity: string }
            const rotated = await rotateIdentitySecretOp(callOf(context, request, session), {
              project,
              identity,
            })
            return shownOnce(session, project, rotated)
          },
          admin,
        ),
      },
    },
    {
      path: '/console/projects/:project/identities/:identity/revoke',
      methods: {
        GET: confirmFor('revoke')(context),
        POST: sessionPage(
          context,
          async (request, session) => {
            requireConfirmation(await checkedForm(request, session))
            const { project, identity } = request.params as { project: string; identity: string }
            await revokeIdentityOp(callOf(context, request, session), { project, identity })
            return redirect(`${paths.identities(project)}?revoked=${encodeURIComponent(identity)}`)
          },
          admin,
        ),
      },
    },
  ]
}
