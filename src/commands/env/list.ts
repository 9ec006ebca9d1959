import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminListEnvironments } from '../../server/admin.js'

export interface EnvListResult {
  environments: { slug: string; name: string }[]
}

export default class EnvList extends BaseCommand<typeof EnvList> {
  static override summary = 'list the environments of a project'
  static override examples = ['<%= config.bin %> <%= command.id %> --project homelab']
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags, project: adminProjectFlag }

  async run(): Promise<EnvListResult> {
    const { flags } = this
    const environments = await adminListEnvironments(adminConnection(flags), flags.project)
    if (!this.jsonEnabled()) this.out(environments.map((environment) => environment.slug).join('\n'))
    return { environments }
  }
}
