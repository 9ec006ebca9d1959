/**
 * Choosing a built-in rotator from the command's flags: `--rotator postgres|mysql` with either
 * `--rotator-url` (reached from this machine) or `--rotator-service` (the database's own client run
 * inside that compose service, `compose exec -T`).
 */
import { UsageError } from '../../errors.js'
import type { DatabaseRotator, ServiceExec } from './rotator.js'

export const rotatorNames = ['postgres', 'mysql'] as const
export type RotatorName = (typeof rotatorNames)[number]

export interface RotatorChoice {
  name: RotatorName
  url?: string
  service?: string
  user?: string
}

/** The rotator for `choice`; `exec` runs a command inside a compose service of the stack. */
export async function createRotator(
  choice: RotatorChoice,
  exec: () => Promise<ServiceExec>,
): Promise<DatabaseRotator> {
  if (Boolean(choice.url) === Boolean(choice.service))
    throw new UsageError(
      `--rotator ${choice.name} needs exactly one of --rotator-url and --rotator-service`,
      {
        hint: `--rotator-url ${choice.name === 'postgres' ? 'postgres://app@127.0.0.1:5432/app' : 'mysql://app@127.0.0.1:3306/app'}, or --rotator-service db`,
      },
    )
  const target = choice.url
    ? ({ kind: 'url', url: choice.url } as const)
    : ({ kind: 'service', service: choice.service!, user: choice.user, exec: await exec() } as const)
  if (choice.name === 'postgres') return (await import('./postgres.js')).postgresRotator(target)
  return (await import('./mysql.js')).mysqlRotator(target)
}
