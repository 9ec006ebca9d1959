import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../base-command.js'
import { adminListIdentities } from '../../server/admin.js'
import type { IdentitySummary } from '../../server/identities.js'

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
    if (!this.jsonEnabled()) {
      for (const identity of identities) {
        const permissions = Object.entries(identity.permissions)
          .map(([slug, levels]) => `${slug}=${levels.join(',')}`)
          .join(' ')
        this.out(
          `${identity.name}\t${identity.clientId}\t${identity.revokedAt ? 'revoked' : 'active'}\t${permissions}`,
        )
      }
    }
    return { identities }
  }
}
