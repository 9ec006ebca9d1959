import * as Args from '@oclif/core/args'
import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminRotateSecret } from '../../server/admin.js'

export interface IdentityRotateSecretResult {
  clientId: string
  clientSecret: string
}

export default class IdentityRotateSecret extends BaseCommand<typeof IdentityRotateSecret> {
  static override summary =
    "give an identity a new client secret; the old one and the identity's tokens stop working"
  static override examples = [
    '<%= config.bin %> <%= command.id %> homelab-deployment --project homelab --json',
  ]
  static override args = {
    identity: Args.string({ required: true, description: 'identity name or client id' }),
  }
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags, project: adminProjectFlag }

  async run(): Promise<IdentityRotateSecretResult> {
    const { flags } = this
    const rotated = await adminRotateSecret(adminConnection(flags), flags.project, this.args.identity)
    if (!this.jsonEnabled()) {
      this.note('new client secret (shown once); update VAULT_CLIENT_SECRET in the stack .env')
      this.out(`VAULT_CLIENT_ID=${rotated.clientId}\nVAULT_CLIENT_SECRET=${rotated.clientSecret}`)
    }
    return rotated
  }
}
