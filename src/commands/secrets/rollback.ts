import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { connect } from '../../client/connect.js'
import { secretMetadata, type SecretMetadata } from '../../client/vault-api.js'
import { isDatabasePassword, rotatorHintFor } from '../../rotate/policy.js'
import { rotatorChoice, rotatorFlags } from '../../cli/rotator-flags.js'
import { allowEnvFlag } from '../../cli/allow-env-flag.js'

export default class SecretsRollback extends BaseCommand<typeof SecretsRollback> {
  static override summary = "write a new version holding an earlier version's value"
  static override description =
    'A database password (POSTGRES_*, MYSQL_*, MARIADB_*, *DB*_PASSWORD, ...) is also held by the database ' +
    'itself: rolled back in the vault alone, the database keeps the newer value and the services can no ' +
    'longer log in, so the command warns. With --rotator postgres|mysql the rotator first sets the ' +
    "database user's password to the earlier value (as vault rotate does, through --rotator-url or the " +
    "database's client inside --rotator-service), then the vault rolls back; if the vault refuses, the " +
    'database gets the current value back.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> API_TOKEN 3 --env dev',
      description: 'back to version 3',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> POSTGRES_PASSWORD 3 --env prod --rotator postgres --rotator-service database --rotator-user app',
      description: 'a database password: inside PostgreSQL too, with psql in the database service',
    },
  ]
  static override enableJsonFlag = true
  static override args = {
    name: Args.string({ required: true, description: 'secret name' }),
    version: Args.integer({ required: true, description: 'the version whose value to restore', min: 1 }),
  }
  static override flags = {
    ...connectionFlags,
    'allow-env': allowEnvFlag(),
    env: envFlag,
    file: Flags.string({
      char: 'f',
      summary: 'compose file for --rotator-service (repeatable; default: discovery in --stack-dir)',
      multiple: true,
    }),
    ...rotatorFlags(
      'set the password inside the database to the earlier value first (PostgreSQL, MySQL/MariaDB)',
    ),
  }

  async run(): Promise<SecretMetadata> {
    const { flags, args } = this
    const { api } = await connect(flags, (line) => this.note(line))
    let result: SecretMetadata
    const choice = rotatorChoice(flags)
    if (choice) {
      const { stackRotator } = await import('../../rotate/rotators/stack-rotator.js')
      const rotator = await stackRotator(choice, api, {
        environment: flags.env,
        stackDir: flags['stack-dir'],
        composeFiles: flags.file,
        allowEnv: flags['allow-env'],
      })
      const { rollbackWithRotator } = await import('../../rotate/rotators/rollback-database.js')
      result = await rollbackWithRotator(api, {
        name: args.name,
        version: args.version,
        environment: flags.env,
        rotator,
        note: (line) => this.note(line),
      })
      this.note(restartNote(args.name, flags.env))
    } else {
      result = await api.rollback(args.name, args.version, flags.env)
      if (isDatabasePassword(args.name))
        this.note(databaseWarning(args.name, args.version, result.version - 1))
    }
    if (!this.jsonEnabled())
      this.note(`${result.name} is now at version ${result.version} (the value of version ${args.version})`)
    return secretMetadata(result)
  }
}

/**
 * What a rollback inside the database tells the user: running services still log in with the newer value,
 * which the database now refuses, and `up -d` alone does not replace a mounted compose secret file.
 */
function restartNote(name: string, env: string | undefined): string {
  const environment = env === undefined ? '' : ` --env ${env}`
  return (
    `The running services still hold the newer value of ${name}, which the database no longer accepts: ` +
    `recreate them (vault run${environment} -- docker-compose up -d --force-recreate)`
  )
}

/** What a database password rolled back in the vault alone tells the user. */
function databaseWarning(name: string, version: number, newer: number): string {
  const rotator = `--rotator ${rotatorHintFor(name) ?? 'postgres|mysql'} --rotator-service SERVICE (or --rotator-url URL)`
  return (
    `Warning: ${name} is a database password and the database still holds the newer value (version ${newer}'s): ` +
    `services that log in with the vault's value will fail. To put it back, undo this (vault secrets rollback ${name} ${newer}), ` +
    `then roll back inside the database too: vault secrets rollback ${name} ${version} ${rotator}`
  )
}
