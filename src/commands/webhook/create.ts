import * as Args from '@oclif/core/args'
import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../base-command.js'
import { adminCreateWebhook } from '../../server/admin.js'

export interface WebhookCreateResult {
  id: string
  url: string
  secret: string
}

export default class WebhookCreate extends BaseCommand<typeof WebhookCreate> {
  static override summary = 'register a webhook for secret-change events and print its signing secret once'
  static override description =
    'Deliveries are POSTs with a JSON body (event type, environment, secret name and version, never a value) and ' +
    'the header X-Vault-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> under the signing secret. ' +
    'Failed deliveries are retried with exponential backoff.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> https://hooks.example.com/vault --project homelab',
  ]
  static override args = { url: Args.string({ required: true, description: 'receiver URL' }) }
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags, project: adminProjectFlag }

  async run(): Promise<WebhookCreateResult> {
    const { flags } = this
    const created = await adminCreateWebhook(adminConnection(flags), flags.project, this.args.url)
    if (!this.jsonEnabled()) {
      this.note(`webhook ${created.id} registered; the signing secret is shown once`)
      this.out(created.secret)
    }
    return created
  }
}
