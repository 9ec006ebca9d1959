/**
 * The frame of every console page: title, the stylesheet served by the server, the navigation with the
 * signed-in human and the sign-out form (a POST with the CSRF token), and the confirm page every
 * destructive change goes through (it works without JavaScript).
 */
import type { HumanSession } from '../humans/session.js'
import { html, type Html } from './html.js'
import { paths } from './paths.js'

/** What a page shows inside the frame. */
export interface PageContent {
  title: string
  session?: HumanSession
  /** Breadcrumb links above the title: [label, href]. */
  trail?: [string, string][]
  body: Html
}

/** A full console page. */
export function layout(content: PageContent): Html {
  const { session } = content
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="no-referrer" />
      <title>${content.title} · vault console</title>
      <link rel="stylesheet" href="${paths.stylesheet}" />
    </head>
    <body>
      <header class="top">
        <a class="brand" href="${paths.projects}">vault</a>
        ${
          session
            ? html`<nav><a href="${paths.projects}">Projects</a></nav>
                <form class="sign-out" method="post" action="${paths.signOut}">
                  <span class="who">${session.username} (${session.role})</span>
                  <input type="hidden" name="csrf" value="${session.csrfToken}" />
                  <button type="submit">Sign out</button>
                </form>`
            : ''
        }
      </header>
      <main>
        ${
          content.trail?.length
            ? html`<p class="trail">
                ${content.trail.map(([label, href]) => html`<a href="${href}">${label}</a> / `)}
              </p>`
            : ''
        }
        <h1>${content.title}</h1>
        ${content.body}
      </main>
    </body>
  </html>`
}

/** A notice above a page's content (after a change: what happened, which version is current). */
export function notice(text: string | undefined, kind: 'ok' | 'error' = 'ok'): Html {
  return text ? html`<p class="notice ${kind}" role="status">${text}</p>` : html``
}

/** The confirmation step of a destructive change: what will happen, and a POST button with the token. */
export function confirmPage(options: {
  session: HumanSession
  title: string
  trail: [string, string][]
  question: string
  consequence: string
  action: string
  fields?: Record<string, string>
  button: string
  cancel: string
}): Html {
  const fields = Object.entries(options.fields ?? {})
  return layout({
    title: options.title,
    session: options.session,
    trail: options.trail,
    body: html`<section class="confirm">
      <p class="question">${options.question}</p>
      <p>${options.consequence}</p>
      <form method="post" action="${options.action}">
        <input type="hidden" name="csrf" value="${options.session.csrfToken}" />
        <input type="hidden" name="confirm" value="yes" />
        ${fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
        <button type="submit" class="danger">${options.button}</button>
        <a class="button" href="${options.cancel}">Cancel</a>
      </form>
    </section>`,
  })
}

/** A table: header labels and rows of cells (each cell escaped unless it is Html). */
export function table(headers: string[], rows: (Html | string | number)[][], empty: string): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`
  return html`<table>
    <thead>
      <tr>
        ${headers.map((label) => html`<th>${label}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr>
            ${row.map((cell) => html`<td>${cell}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`
}

/** The hidden CSRF field of a form. */
export function csrfField(session: HumanSession): Html {
  return html`<input type="hidden" name="csrf" value="${session.csrfToken}" />`
}
