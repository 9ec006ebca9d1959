import { adminConnection, adminProjectFlag, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminListWebhooks } from '../../server/admin.js'
import { formatColumns } from '../../text/columns.js'

export interface WebhookListResult {
  webhooks: { id: string; url: string; createdAt: string; disabled: boolean }[]
}

export default class WebhookList extends BaseCommand<typeof WebhookList> {
  static override summary = 'list the webhooks of a project'
  static override examples = ['<%= config.bin %> <%= command.id %> --project homelab']
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags, project: adminProjectFlag }

  async run(): Promise<WebhookListResult> {
    const { flags } = this
    const rows = await adminListWebhooks(adminConnection(flags), flags.project)
    const webhooks = rows.map((row) => ({
      id: row.id,
      url: row.url,
      createdAt: row.created_at,
      disabled: row.disabled_at !== null,
    }))
    if (!this.jsonEnabled() && webhooks.length > 0) {
      const table = webhooks.map((hook) => [
        hook.id,
        hook.url,
        hook.createdAt,
        hook.disabled ? 'disabled' : 'active',
      ])
      this.out(formatColumns(table, ['ID', 'URL', 'CREATED', 'STATE']))
    }
    return { webhooks }
  }
}
