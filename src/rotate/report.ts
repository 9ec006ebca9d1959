/**
 * Human output of `vault rotate`: the services recreated with their state, and the `--due` table.
 */
import type { DueResult } from './due.js'
import type { OtherStack } from './other-stacks.js'
import type { ServiceReport } from './restart.js'
import type { RotateResult } from './rotate-secret.js'
import { formatColumns } from '../text/columns.js'
import { shellWord } from '../text/shell-word.js'
import { fields } from '../text/terminal-text.js'

function serviceLines(services: ServiceReport[], indent = ''): string[] {
  return services.map(
    (service) =>
      indent +
      fields`${service.ok ? 'ok  ' : 'FAIL'} ${service.service}: ${service.status}` +
      (service.health ? fields` (${service.health})` : '') +
      (!service.ok && service.reason ? fields` - ${service.reason}` : ''),
  )
}

/** One line per service, compose's whole error when it failed, then what the vault now holds. */
export function formatRotateReport(result: RotateResult): string {
  const lines = serviceLines(result.services)
  if (result.error) lines.push(result.error)
  const holds = `the vault holds version ${result.vaultVersion} (${result.vaultHolds === 'new' ? 'the new value' : `the value of version ${result.previousVersion}`})`
  if (!result.restarted) {
    lines.push(`rotated ${result.name} to version ${result.version}; no service recreated; ${holds}`)
  } else if (result.outcome === 'rotated') {
    lines.push(
      `rotated ${result.name} to version ${result.version}; ${result.services.length} service(s) recreated, all ready; ${holds}`,
    )
  } else if (result.outcome === 'unhealthy') {
    lines.push(
      `rotated ${result.name} to version ${result.version}, but the services are NOT ready (--no-rollback); ${holds}`,
    )
  } else {
    lines.push(
      `rotated ${result.name} to version ${result.version}, but the services were NOT ready: rolled back`,
    )
    if (result.rollback) {
      lines.push(...serviceLines(result.rollback.services, '  '))
      if (result.rollback.error) lines.push(result.rollback.error)
      lines.push(
        `  recreated with the previous value: ${result.rollback.healthy ? 'all ready' : 'NOT all ready'}`,
      )
    }
    lines.push(holds)
  }
  return lines.join('\n')
}

/** The `--due` table, oldest first: every secret, `no rule` for one no rotation rule covers. */
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
      : 'no secret in this environment'
  return `${table}\n${result.due} secret(s) due for rotation`
}

/**
 * The warning for another stack that uses the rotated secret, with the command that recreates its
 * services: every word quoted for sh, since a stack directory's name is the user's (or anyone's who
 * made it) and the line is meant to be pasted.
 */
export function formatOtherStackWarning(other: OtherStack, name: string, environment?: string): string {
  const env = environment ? ` --env ${shellWord(environment)}` : ''
  const services = other.services.map(shellWord).join(' ')
  return (
    `Warning: the stack in ${other.stackDir} also uses ${name} (${other.services.join(', ')}) and still runs with the old value: ` +
    `cd ${shellWord(other.stackDir)} && vault run${env} -- docker compose up -d --no-deps ${services}`
  )
}
