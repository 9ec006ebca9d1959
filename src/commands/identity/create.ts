import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {
  adminConnection,
  adminProjectFlag,
  adminStoreFlags,
  BaseCommand,
  oidcTrustFlags,
  oidcTrustInput,
} from '../../cli/base-command.js'
import { adminCreateTrustedIdentity } from '../../server/admin.js'
import type { IdentitySummary } from '../../server/identities.js'
import type { OidcTrust } from '../../server/tokens/oidc-trust.js'

export interface IdentityCreateResult extends IdentitySummary {
  clientSecret: string
  /** The OIDC trust, when --oidc-issuer gave one. */
  oidc?: OidcTrust
}

export default class IdentityCreate extends BaseCommand<typeof IdentityCreate> {
  static override summary = 'create a machine identity and print its client secret once'
  static override description =
    'Permissions are per environment: read, write, admin. Grant the least an identity needs; one identity per ' +
    'environment is the recommended practice. With --oidc-issuer, --oidc-audience and --oidc-subject, CI jobs ' +
    'whose OIDC token matches exchange it for access (VAULT_CLIENT_ID, no client secret in CI). Opens the vault ' +
    'database directly (DB_URL, ENCRYPTION_KEY).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> ci-prod --project homelab --permissions "prod=read"',
    '<%= config.bin %> <%= command.id %> deployer --project homelab --permissions "*=read,write" --json',
    '<%= config.bin %> <%= command.id %> ci-prod --project homelab --permissions "prod=read" --oidc-issuer https://token.actions.githubusercontent.com --oidc-audience https://vault.example.com --oidc-subject "repo:acme/stack:ref:refs/heads/main"',
  ]
  static override args = { name: Args.string({ required: true, description: 'identity name' }) }
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    ...oidcTrustFlags,
    permissions: Flags.string({ summary: 'e.g. "dev=read,write;prod=read" or "*=read"', required: true }),
    project: adminProjectFlag,
  }

  async run(): Promise<IdentityCreateResult> {
    const { flags } = this
    const created = await adminCreateTrustedIdentity(adminConnection(flags), {
      project: flags.project,
      name: this.args.name,
      permissions: flags.permissions,
      oidc: oidcTrustInput(flags),
    })
    if (!this.jsonEnabled()) {
      this.note(`identity ${created.name} created; the client secret is shown once`)
      if (created.oidc) this.note(`its CI jobs may log in with OIDC tokens of ${created.oidc.issuer} instead`)
      this.out(`VAULT_CLIENT_ID=${created.clientId}\nVAULT_CLIENT_SECRET=${created.clientSecret}`)
    }
    return created
  }
}
