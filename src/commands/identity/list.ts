import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminListIdentities } from '../../server/admin.js'
import type { IdentitySummary } from '../../server/identities.js'
import { formatColumns } from '../../text/columns.js'

export interface IdentityListResult {
  identities: IdentitySummary[]
}

export default class IdentityList extends BaseCommand<typeof IdentityList> {
  static override summary = 'list the machine identities of a project'
  static override examples = ['<%= config.bin %> <%= command.id %> --project homelab']
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags, project: adminProjectFlag }

  async run(): Promise<IdentityListResult> {
    const { flags } = this
    const identities = await adminListIdentities(adminConnection(flags), flags.project)
    if (!this.jsonEnabled() && identities.length > 0) {
      const rows = identities.map((identity) => [
        identity.name,
        identity.clientId,
        identity.revokedAt ? 'revoked' : 'active',
        Object.entries(identity.permissions)
          .map(([slug, levels]) => `${slug}=${levels.join(',')}`)
          .join(' '),
      ])
      this.out(formatColumns(rows, ['NAME', 'CLIENT ID', 'STATE', 'PERMISSIONS']))
    }
    return { identities }
  }
}
