import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminCreateWebhook } from '../../server/admin.js'

export interface WebhookCreateResult {
  id: string
  url: string
  secret: string
  warnings: string[]
}

export default class WebhookCreate extends BaseCommand<typeof WebhookCreate> {
  static override summary = 'register a webhook for secret-change events and print its signing secret once'
  static override description =
    'Deliveries are POSTs with a JSON body (event type, environment, secret name and version, never a value) and ' +
    'the header X-Vault-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> under the signing secret. ' +
    "Failed deliveries are retried with exponential backoff and redirects are never followed. The receiver's host " +
    'is resolved and refused when any of its addresses is loopback, private, link-local (cloud metadata), ' +
    'unique-local or otherwise not public, unless --allow-private is given; the server checks again before ' +
    'every delivery (start it with --allow-private-webhooks to deliver to such receivers) and connects to the ' +
    'address it checked. Plain http:// to a host that is not loopback draws a warning.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> https://hooks.example.com/vault --project homelab',
    '<%= config.bin %> <%= command.id %> http://127.0.0.1:9000/hook --project homelab --allow-private',
  ]
  static override args = { url: Args.string({ required: true, description: 'receiver URL' }) }
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    project: adminProjectFlag,
    'allow-private': Flags.boolean({
      summary: 'accept a loopback, private or link-local receiver (a homelab on one host, tests)',
    }),
  }

  async run(): Promise<WebhookCreateResult> {
    const { flags } = this
    const created = await adminCreateWebhook(adminConnection(flags), {
      project: flags.project,
      url: this.args.url,
      allowPrivate: flags['allow-private'],
    })
    for (const warning of created.warnings) this.note(`warning: ${warning}`)
    if (!this.jsonEnabled()) {
      this.note(`webhook ${created.id} registered; the signing secret is shown once`)
      this.out(created.secret)
    }
    return created
  }
}
