import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminCreateIdentity } from '../../server/admin.js'
import type { IdentitySummary } from '../../server/identities.js'

export interface IdentityCreateResult extends IdentitySummary {
  clientSecret: string
}

export default class IdentityCreate extends BaseCommand<typeof IdentityCreate> {
  static override summary = 'create a machine identity and print its client secret once'
  static override description =
    'Permissions are per environment: read, write, admin. Grant the least an identity needs; one identity per ' +
    'environment is the recommended practice. Opens the vault database directly (DB_URL, ENCRYPTION_KEY).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> ci-prod --project homelab --permissions "prod=read"',
    '<%= config.bin %> <%= command.id %> deployer --project homelab --permissions "*=read,write" --json',
  ]
  static override args = { name: Args.string({ required: true, description: 'identity name' }) }
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    permissions: Flags.string({ summary: 'e.g. "dev=read,write;prod=read" or "*=read"', required: true }),
    project: adminProjectFlag,
  }

  async run(): Promise<IdentityCreateResult> {
    const { flags } = this
    const created = await adminCreateIdentity(
      adminConnection(flags),
      flags.project,
      this.args.name,
      flags.permissions,
    )
    if (!this.jsonEnabled()) {
      this.note(`identity ${created.name} created; the client secret is shown once`)
      this.out(`VAULT_CLIENT_ID=${created.clientId}\nVAULT_CLIENT_SECRET=${created.clientSecret}`)
    }
    return created
  }
}
