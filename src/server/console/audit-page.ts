/**
 * The audit log of a project (admins): the state of the chain (verified on every view: the links and
 * hashes of the events appended since the last view (audit-verifier.ts), the head, the row MACs), then
 * the events, newest page last, 100 at a time. Reading it is itself audited.
 */
import type { VaultContext } from '../context.js'
import { integrityProblems } from '../keys/integrity.js'
import { listAuditOp, verifyAuditOp } from '../operations/audit.js'
import type { Resource } from '../http/router.js'
import { pageResponse } from './headers.js'
import { html } from './html.js'
import { layout, table } from './layout.js'
import { paths } from './paths.js'
import { callOf, sessionPage } from './respond.js'
import { versionOf } from './values.js'

const pageSize = 100

/** The audit resource. */
export function auditResources(context: VaultContext): Resource[] {
  return [
    {
      path: '/console/projects/:project/audit',
      methods: {
        GET: sessionPage(
          context,
          async (request, session) => {
            const project = request.params.project!
            const afterText = request.url.searchParams.get('after')
            const afterSeq = afterText === null || afterText === '0' ? 0 : versionOf(afterText)
            const call = callOf(context, request, session)
            const report = await verifyAuditOp(call, { incremental: true })
            const chain = {
              ok: report.ok,
              events: report.audit.events,
              head: report.audit.head,
              problems: integrityProblems(report),
            }
            const events = await listAuditOp(call, {
              project,
              afterSeq,
              limit: pageSize,
            })
            const rows = events.map((event) => [
              event.seq,
              event.at,
              event.actor,
              event.action,
              event.environment ?? '',
              event.target ?? '',
              html`<span class="result-${event.result}">${event.result}</span>`,
              event.detail ?? '',
              event.ip ?? '',
            ])
            const last = events.at(-1)
            return pageResponse(
              200,
              layout({
                title: `${project}: audit log`,
                session,
                trail: [['Projects', paths.projects]],
                body: html`<section class="chain ${chain.ok ? 'ok' : 'broken'}">
                    <h2>Chain: ${chain.ok ? 'intact' : 'BROKEN'}</h2>
                    <p>
                      ${chain.events} events in the whole
                      vault${chain.head ? html`, head <code>${chain.head.slice(0, 16)}…</code>` : ''}.
                    </p>
                    ${
                      chain.problems.length
                        ? html`<ul>
                            ${chain.problems.map((line) => html`<li>${line}</li>`)}
                          </ul>`
                        : ''
                    }
                  </section>
                  ${table(['#', 'At', 'Actor', 'Action', 'Env', 'Target', 'Result', 'Detail', 'Address'], rows, 'No events after this point.')}
                  <p class="pager">
                    ${afterSeq > 0 ? html`<a href="${paths.audit(project)}">First page</a> ` : ''}${
                      events.length === pageSize && last
                        ? html`<a href="${paths.audit(project)}?after=${last.seq}"
                            >Next ${pageSize} events</a
                          >`
                        : ''
                    }
                  </p>`,
              }),
            )
          },
          { adminOnly: true },
        ),
      },
    },
  ]
}
