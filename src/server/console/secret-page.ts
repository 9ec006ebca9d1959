/**
 * One secret: its history (every version, when, by whom; the new version highlighted after a change),
 * the update form, reveal (a POST, audited, answered `no-store`), and delete and rollback, which go
 * through a confirm page and apply only while the secret is still at the version that page showed.
 */
import type { ApiRequest } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { inEnvironmentAs } from '../secrets/human-secrets.js'
import type { HumanSession } from '../humans/session.js'
import type { Resource } from '../http/router.js'
import { checkedName } from '../routes/secrets.js'
import {
  deleteSecret,
  getSecret,
  listVersions,
  readVersion,
  rollbackSecret,
  writeSecret,
} from '../secrets/secrets.js'
import { checkedForm, requireConfirmation } from './guard.js'
import { pageResponse, redirect } from './headers.js'
import { html } from './html.js'
import { confirmPage, csrfField, layout, notice, table } from './layout.js'
import { actorLabels, postButton, whereOf } from './environment-page.js'
import { paths } from './paths.js'
import { actorOf, sessionPage } from './respond.js'
import { resolveForReveal, type ResolvedTemplate } from './template-value.js'
import { formValue, versionOf } from './values.js'

function target(request: ApiRequest) {
  const where = whereOf(request)
  return { ...where, name: checkedName(request.params.name!) }
}

const trailOf = (where: { project: string; environment: string }): [string, string][] => [
  ['Projects', paths.projects],
  [`${where.project} / ${where.environment}`, paths.environment(where.project, where.environment)],
]

async function historyPage(context: VaultContext, request: ApiRequest, session: HumanSession) {
  const where = target(request)
  const { versions, label } = await inEnvironmentAs(
    actorOf(context, request, session),
    where,
    async (at) => ({
      versions: await listVersions(at, where.name),
      label: await actorLabels(at.tx, at.scope.projectId),
    }),
  )
  const current = versions.at(-1)
  const live = current !== undefined && !current.deleted
  const changed = Number(request.url.searchParams.get('changed'))
  const said =
    current && changed === current.version
      ? current.deleted
        ? `${where.name} was deleted (version ${current.version}).`
        : `Saved: ${where.name} is now at version ${current.version}.`
      : undefined
  const rows = [...versions].reverse().map((version) => [
    version.version,
    version.createdAt,
    label(version.actor),
    version.deleted ? 'deleted' : version === current ? 'current' : '',
    version.deleted
      ? ''
      : html`${postButton(session, {
          action: paths.reveal(where.project, where.environment, where.name),
          label: 'Reveal',
          fields: { version: String(version.version) },
        })}${
          version === current
            ? ''
            : html` <a
                class="button"
                href="${paths.rollback(where.project, where.environment, where.name)}?version=${version.version}"
                >Roll back to this</a
              >`
        }`,
  ])
  return pageResponse(
    200,
    layout({
      title: where.name,
      session,
      trail: trailOf(where),
      body: html`${notice(said)}
        <h2>History</h2>
        ${table(['Version', 'Written', 'By', 'State', ''], rows, 'No versions.')}
        <h2>${live ? 'Update' : 'Restore with a new value'}</h2>
        <form
          class="stacked"
          method="post"
          action="${paths.secret(where.project, where.environment, where.name)}"
        >
          ${csrfField(session)}
          <input type="hidden" name="current" value="${String(current?.version ?? '')}" />
          <label
            >New value
            <textarea name="value" rows="3" required autocomplete="off" spellcheck="false"></textarea>
          </label>
          <button type="submit">Save as version ${(current?.version ?? 0) + 1}</button>
        </form>
        ${live ? html`<p><a class="button danger" href="${paths.deleteSecret(where.project, where.environment, where.name)}">Delete ${where.name}…</a></p>` : ''}`,
    }),
  )
}

async function revealPage(context: VaultContext, request: ApiRequest, session: HumanSession) {
  const form = await checkedForm(request, session)
  const where = target(request)
  const { revealed, resolved } = await inEnvironmentAs(
    actorOf(context, request, session),
    where,
    async (at) => {
      const revealed = form.version
        ? await readVersion(at, where.name, versionOf(form.version))
        : await getSecret(at, where.name)
      const resolved = revealed.template ? await resolveForReveal(at, where.name, revealed.value) : undefined
      return { revealed, resolved }
    },
  )
  return pageResponse(
    200,
    layout({
      title: `${where.name}, version ${revealed.version}`,
      session,
      trail: trailOf(where),
      body: html`<p class="notice">
          This reveal is recorded in the audit log. The page is not cached; close it when done.
        </p>
        ${resolved ? templateReveal(revealed.value, resolved) : html`<pre class="value" id="revealed-value">${revealed.value}</pre>`}
        <p>
          <a href="${paths.secret(where.project, where.environment, where.name)}">History of ${where.name}</a>
        </p>`,
    }),
    { 'cache-control': 'no-store', pragma: 'no-cache' },
  )
}

/** A template's reveal: as written, then resolved from the environment's current values (or why not). */
function templateReveal(template: string, resolved: ResolvedTemplate) {
  return html`<h2>Template, as written</h2>
    <pre class="value" id="template-value">${template}</pre>
    <h2>Resolved from the current values of this environment</h2>
    ${
      'value' in resolved
        ? html`<pre class="value" id="revealed-value">${resolved.value}</pre>`
        : html`<p class="notice" id="template-problem">
            This template cannot be resolved: ${resolved.problem}
          </p>`
    }`
}

const currentTag = (form: Record<string, string>) => ({ ifMatch: `"${versionOf(form.current)}"` })

/** The resources of one secret. */
export function secretResources(context: VaultContext): Resource[] {
  const base = '/console/projects/:project/environments/:environment/secrets/:name'
  const back = (where: ReturnType<typeof target>, version: number) =>
    redirect(`${paths.secret(where.project, where.environment, where.name)}?changed=${version}`)
  return [
    {
      path: base,
      methods: {
        GET: sessionPage(context, (request, session) => historyPage(context, request, session)),
        POST: sessionPage(context, async (request, session) => {
          const form = await checkedForm(request, session)
          const where = target(request)
          const value = formValue(context, form.value)
          const conditions = form.current ? currentTag(form) : { ifNoneMatch: '*' }
          const result = await inEnvironmentAs(actorOf(context, request, session), where, (at) =>
            writeSecret(at, { name: where.name, value, mode: 'upsert', ...conditions }),
          )
          return back(where, result.secret.version)
        }),
      },
    },
    {
      path: `${base}/reveal`,
      methods: { POST: sessionPage(context, (request, session) => revealPage(context, request, session)) },
    },
    {
      path: `${base}/delete`,
      methods: {
        GET: sessionPage(context, async (request, session) => {
          const where = target(request)
          const versions = await inEnvironmentAs(actorOf(context, request, session), where, (at) =>
            listVersions(at, where.name),
          )
          const current = versions.at(-1)!
          return pageResponse(
            200,
            confirmPage({
              session,
              title: `Delete ${where.name}?`,
              trail: trailOf(where),
              question: `Delete ${where.name} (version ${current.version}) from ${where.environment}?`,
              consequence: `Services that read it stop getting it. Its history stays, and a rollback brings it back as version ${current.version + 2}.`,
              action: paths.deleteSecret(where.project, where.environment, where.name),
              fields: { current: String(current.version) },
              button: `Delete ${where.name}`,
              cancel: paths.secret(where.project, where.environment, where.name),
            }),
          )
        }),
        POST: sessionPage(context, async (request, session) => {
          const form = await checkedForm(request, session)
          requireConfirmation(form)
          const where = target(request)
          const versions = await inEnvironmentAs(actorOf(context, request, session), where, async (at) => {
            await deleteSecret(at, where.name, currentTag(form))
            return listVersions(at, where.name)
          })
          return back(where, versions.at(-1)!.version)
        }),
      },
    },
    {
      path: `${base}/rollback`,
      methods: {
        GET: sessionPage(context, async (request, session) => {
          const where = target(request)
          const version = versionOf(request.url.searchParams.get('version'))
          const versions = await inEnvironmentAs(actorOf(context, request, session), where, (at) =>
            listVersions(at, where.name),
          )
          const current = versions.at(-1)!
          return pageResponse(
            200,
            confirmPage({
              session,
              title: `Roll back ${where.name}?`,
              trail: trailOf(where),
              question: `Roll ${where.name} back to the value of version ${version}?`,
              consequence: `This writes version ${current.version + 1} with that value; services get it on their next read.`,
              action: paths.rollback(where.project, where.environment, where.name),
              fields: { version: String(version), current: String(current.version) },
              button: `Roll back to version ${version}`,
              cancel: paths.secret(where.project, where.environment, where.name),
            }),
          )
        }),
        POST: sessionPage(context, async (request, session) => {
          const form = await checkedForm(request, session)
          requireConfirmation(form)
          const where = target(request)
          const row = await inEnvironmentAs(actorOf(context, request, session), where, (at) =>
            rollbackSecret(at, { name: where.name, version: versionOf(form.version), ...currentTag(form) }),
          )
          return back(where, row.version)
        }),
      },
    },
  ]
}
