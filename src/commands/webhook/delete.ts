import * as Args from '@oclif/core/args'
import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminDisableWebhook } from '../../server/admin.js'

export interface WebhookDeleteResult {
  id: string
  disabled: true
}

export default class WebhookDelete extends BaseCommand<typeof WebhookDelete> {
  static override summary = 'stop a webhook: no further deliveries, pending ones included'
  static override description =
    'The webhook stays in `vault webhook list` as disabled, so the audit log keeps naming it; its signing ' +
    'secret is never used again. An unknown or already stopped id exits with code 5.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 3f0c9a52-7d1e-4f7a-9b0e-2a4c6d8e1f00 --project homelab',
  ]
  static override args = {
    id: Args.string({ required: true, description: 'webhook id (see `webhook list`)' }),
  }
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags, project: adminProjectFlag }

  async run(): Promise<WebhookDeleteResult> {
    const { flags, args } = this
    await adminDisableWebhook(adminConnection(flags), flags.project, args.id)
    if (!this.jsonEnabled()) this.note(`webhook ${args.id} stopped`)
    return { id: args.id, disabled: true }
  }
}
