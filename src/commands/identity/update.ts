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
import { UsageError } from '../../errors.js'
import { adminUpdateIdentityOidc } from '../../server/admin.js'
import type { OidcTrust } from '../../server/tokens/oidc-trust.js'

export interface IdentityUpdateResult {
  id: string
  clientId: string
  /** The identity's OIDC trust now (null: none). */
  oidc: OidcTrust | null
}

export default class IdentityUpdate extends BaseCommand<typeof IdentityUpdate> {
  static override summary = 'set or remove the OIDC trust of a machine identity (nothing else changes)'
  static override description =
    'The new trust replaces the old one whole; its tokens keep working until they expire. Opens the vault ' +
    'database directly (DB_URL, ENCRYPTION_KEY).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> ci-prod --project homelab --oidc-issuer https://gitlab.com --oidc-audience https://vault.example.com --oidc-subject "project_path:acme/stack:ref_type:branch:ref:main"',
    '<%= config.bin %> <%= command.id %> ci-prod --project homelab --remove-oidc --json',
  ]
  static override args = {
    identity: Args.string({ required: true, description: 'identity name or client id' }),
  }
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    ...oidcTrustFlags,
    project: adminProjectFlag,
    'remove-oidc': Flags.boolean({ helpGroup: 'OIDC', summary: 'trust no OIDC token any more' }),
  }

  async run(): Promise<IdentityUpdateResult> {
    const { flags } = this
    const input = oidcTrustInput(flags)
    const given = Object.values(input).some((value) => value !== undefined)
    if (given === flags['remove-oidc']) {
      throw new UsageError('pass either --oidc-issuer, --oidc-audience and --oidc-subject, or --remove-oidc')
    }
    const updated = await adminUpdateIdentityOidc(
      adminConnection(flags),
      flags.project,
      this.args.identity,
      flags['remove-oidc'] ? null : input,
    )
    if (!this.jsonEnabled()) {
      this.note(
        updated.oidc
          ? `identity ${this.args.identity} now trusts OIDC tokens of ${updated.oidc.issuer}`
          : `identity ${this.args.identity} trusts no OIDC token`,
      )
    }
    return updated
  }
}
