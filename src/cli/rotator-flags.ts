/** The database-rotator flags that `vault rotate` and `vault secrets rollback` share, and their parsing. */
import * as Flags from '@oclif/core/flags'
import { rotatorNames, type RotatorChoice } from '../rotate/rotators/index.js'

/**
 * The database-rotator flags of `rotate` and `secrets rollback` (src/rotate/rotators/): which rotator,
 * and how it reaches the database. `summary` says what the rotator does for that command.
 */
export function rotatorFlags(summary: string) {
  return {
    rotator: Flags.option({ options: rotatorNames })({ summary }),
    'rotator-service': Flags.string({
      summary: 'compose service whose own database client the rotator runs (exec -T)',
    }),
    'rotator-url': Flags.string({
      summary:
        'database URL the rotator connects to (user, host, port, database; the password comes from the vault)',
    }),
    'rotator-user': Flags.string({
      summary: 'database user with --rotator-service (default: postgres / root)',
    }),
  }
}

/** The rotator the `rotatorFlags` name, or undefined without --rotator. */
export function rotatorChoice(flags: {
  rotator?: (typeof rotatorNames)[number]
  'rotator-url'?: string
  'rotator-service'?: string
  'rotator-user'?: string
}): RotatorChoice | undefined {
  if (!flags.rotator) return undefined
  return {
    name: flags.rotator,
    url: flags['rotator-url'],
    service: flags['rotator-service'],
    user: flags['rotator-user'],
  }
}
