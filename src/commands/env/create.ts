import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminCreateEnvironment } from '../../server/admin.js'

export interface EnvCreateResult {
  slug: string
  name: string
}

export default class EnvCreate extends BaseCommand<typeof EnvCreate> {
  static override summary = 'add an environment to a project'
  static override examples = ['<%= config.bin %> <%= command.id %> staging --project homelab']
  static override args = {
    slug: Args.string({ required: true, description: 'environment slug (lowercase)' }),
  }
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    name: Flags.string({ summary: 'display name [default: the slug]' }),
    project: adminProjectFlag,
  }

  async run(): Promise<EnvCreateResult> {
    const { flags } = this
    const created = await adminCreateEnvironment(
      adminConnection(flags),
      flags.project,
      this.args.slug,
      flags.name,
    )
    if (!this.jsonEnabled()) this.note(`environment ${created.slug} created`)
    return created
  }
}
