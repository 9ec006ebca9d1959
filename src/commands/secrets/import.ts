import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import type { ImportResult } from '../../stack/import-secrets.js'
import { formatColumns } from '../../text/columns.js'

export default class SecretsImport extends BaseCommand<typeof SecretsImport> {
  static override summary = 'import the values of a dotenv file (such as the stack .env) into an environment'
  static override description =
    'FILE is read exactly as compose reads an env file (quotes, escapes, multi-line values, ${VAR} from the ' +
    'process environment). Each name is printed with the compose services that use it. An existing, different ' +
    'value is kept unless --force; VAULT_ settings and bare names are skipped. --move then rewrites FILE: each ' +
    'imported line becomes a comment without its value plus a bare NAME line, which compose fills from its ' +
    'environment (where `vault run` puts the vault value), so services with `env_file: FILE` keep receiving it; ' +
    'a mode-600 copy of the old FILE is kept in .vault/ next to it. Before anything is written it warns, as compose ' +
    'does, of a $VAR in a value that is not set (the value would hold a blank string there); --raw imports values ' +
    "as written. A value that holds another secret's value (a URL's password, or a part of it) is shown; " +
    '--templates stores it as a template of that secret (${NAME}), so it follows when that secret rotates.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> .env --env dev --dry-run',
      description: 'what would be imported, and who uses each name',
    },
    {
      command: '<%= config.bin %> <%= command.id %> .env --env dev --only DB_PASSWORD,REDIS_PASSWORD --move',
      description: 'import two values and take them out of .env',
    },
    {
      command: '<%= config.bin %> <%= command.id %> .env --env dev --templates --dry-run',
      description: 'which values would become templates of another (DATABASE_URL of DB_PASSWORD)',
    },
  ]
  static override enableJsonFlag = true
  static override args = { file: Args.file({ required: true, exists: true, description: 'dotenv file' }) }
  static override flags = {
    ...connectionFlags,
    'dry-run': Flags.boolean({ summary: 'show what would be imported; write nothing' }),
    env: envFlag,
    file: Flags.string({
      char: 'f',
      summary: 'compose file for the services column (repeatable; default: discovery in --stack-dir)',
      multiple: true,
    }),
    force: Flags.boolean({ summary: 'overwrite values the vault already holds' }),
    move: Flags.boolean({ summary: 'comment the imported values out of FILE (keeping a mode-600 copy)' }),
    only: Flags.string({
      summary: 'import only these names (comma-separated, or the flag repeated)',
      multiple: true,
      multipleNonGreedy: true,
      delimiter: ',',
    }),
    raw: Flags.boolean({ summary: 'import values as written: no ${VAR} interpolation' }),
    templates: Flags.boolean({
      summary: "store a value holding another secret's value as a template of that secret",
    }),
  }

  async run(): Promise<ImportResult> {
    const { flags } = this
    const [{ connect }, { importSecrets }, users] = await Promise.all([
      import('../../client/connect.js'),
      import('../../stack/import-secrets.js'),
      import('../../stack/stack-users.js'),
    ])
    const { api } = await connect(flags, (line) => this.note(line))
    const only = flags.only?.map((name) => name.trim()).filter(Boolean)
    const result = await importSecrets(api, {
      file: this.args.file,
      environment: flags.env,
      only,
      force: flags.force,
      dryRun: flags['dry-run'],
      raw: flags.raw,
      templates: flags.templates,
      onWarning: (line) => this.note(`Warning: ${line}`),
      move: flags.move && !flags['dry-run'],
      processEnv: process.env,
      usersOf: async (names) => {
        const project = await users.loadStackForUsers({
          stackDir: flags['stack-dir'],
          composeFiles: flags.file,
        })
        return project ? users.servicesUsing(project, names) : {}
      },
    })
    if (!this.jsonEnabled()) this.report(result)
    return result
  }

  private report(result: ImportResult): void {
    const rows = result.secrets.map((secret) => [
      secret.name,
      result.dryRun && ['created', 'overwritten'].includes(secret.action)
        ? `would be ${secret.action}`
        : secret.action,
      secret.services.join(',') || '-',
      secret.reason ?? '',
    ])
    this.out(formatColumns(rows, ['NAME', 'ACTION', 'SERVICES', 'NOTE']))
    const where = result.environment ?? 'the default environment'
    const count = (action: string) => result.secrets.filter((secret) => secret.action === action).length
    this.note(
      `${where}: ${count('created')} created, ${count('overwritten')} overwritten, ${count('unchanged')} unchanged, ${count('kept')} kept, ${count('skipped')} skipped${result.dryRun ? ' (dry run: nothing written)' : ''}`,
    )
    if (result.backup)
      this.note(
        `moved ${result.moved.join(', ')} out of ${result.file}; the old file is kept in ${result.backup}`,
      )
  }
}
