/**
 * Human output of `vault rotate`: the services recreated with their state, and the `--due` table.
 */
import type { DueResult } from '../rotate/due.js'
import type { RotateResult } from '../rotate/rotate-secret.js'
import { formatColumns } from './columns.js'

/** One line per service, then a summary line. */
export function formatRotateReport(result: RotateResult): string {
  const lines = result.services.map(
    (service) =>
      `${service.ok ? 'ok  ' : 'FAIL'} ${service.service}: ${service.status}${service.health ? ` (${service.health})` : ''}`,
  )
  const summary = !result.restarted
    ? `rotated ${result.name} to version ${result.version}; no service recreated`
    : `rotated ${result.name} to version ${result.version}; ${result.services.length} service(s) recreated, ${result.healthy ? 'all up' : 'NOT all up'}`
  return [...lines, summary].join('\n')
}

/** The `--due` table, oldest first. */
export function formatDueReport(result: DueResult): string {
  const rows = result.secrets.map((secret) => [
    secret.due ? 'DUE' : 'ok',
    secret.name,
    secret.kind,
    `${secret.ageDays}d`,
    `${secret.maxAgeDays}d`,
  ])
  const table =
    rows.length > 0
      ? formatColumns(rows, ['', 'NAME', 'KIND', 'AGE', 'MAX'])
      : 'no secret is covered by a rotation rule'
  return `${table}\n${result.due} secret(s) due for rotation`
}
