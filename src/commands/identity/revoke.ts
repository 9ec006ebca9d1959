import * as Args from '@oclif/core/args'
import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminRevokeIdentity } from '../../server/admin.js'

export interface IdentityRevokeResult {
  revoked: string
}

export default class IdentityRevoke extends BaseCommand<typeof IdentityRevoke> {
  static override summary = 'revoke a machine identity and every access token it holds'
  static override examples = ['<%= config.bin %> <%= command.id %> ci-prod --project homelab']
  static override args = {
    identity: Args.string({ required: true, description: 'identity name or client id' }),
  }
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags, project: adminProjectFlag }

  async run(): Promise<IdentityRevokeResult> {
    const { flags } = this
    await adminRevokeIdentity(adminConnection(flags), flags.project, this.args.identity)
    if (!this.jsonEnabled()) this.note(`identity ${this.args.identity} revoked; its tokens stopped working`)
    return { revoked: this.args.identity }
  }
}
