import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { connect } from '../../client/connect.js'
import type { SecretVersion } from '../../client/vault-api.js'
import { formatColumns } from '../../text/columns.js'

export interface SecretsHistoryResult {
  name: string
  /** Newest first. */
  versions: SecretVersion[]
}

export default class SecretsHistory extends BaseCommand<typeof SecretsHistory> {
  static override summary = 'list the versions of a secret, newest first (who and when, never values)'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev', description: 'versions' },
    {
      command: '<%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev --last 3',
      description: 'the three newest',
    },
  ]
  static override enableJsonFlag = true
  static override args = { name: Args.string({ required: true, description: 'secret name' }) }
  static override flags = {
    ...connectionFlags,
    env: envFlag,
    last: Flags.integer({ summary: 'only the newest N versions', min: 1 }),
  }

  async run(): Promise<SecretsHistoryResult> {
    const { api } = await connect(this.flags, (line) => this.note(line))
    const all = (await api.versions(this.args.name, this.flags.env)).sort((a, b) => b.version - a.version)
    const versions = this.flags.last === undefined ? all : all.slice(0, this.flags.last)
    if (!this.jsonEnabled() && versions.length > 0) {
      const rows = versions.map((entry) => [
        String(entry.version),
        entry.createdAt,
        entry.actorName ? `${entry.actorName} (${entry.actor})` : (entry.actor ?? ''),
        entry.deleted ? 'deleted' : '',
      ])
      this.out(formatColumns(rows, ['VERSION', 'CREATED', 'ACTOR', '']))
    }
    return { name: this.args.name, versions }
  }
}
