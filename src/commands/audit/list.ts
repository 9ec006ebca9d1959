import * as Flags from '@oclif/core/flags'
import { adminConnection, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminListAudit } from '../../server/admin.js'
import type { AuditRecord } from '../../server/audit/audit.js'
import { formatColumns } from '../../text/columns.js'

export interface AuditListResult {
  /** Newest first; `actorName` is the identity's name behind an `identity:ID` actor. */
  events: (AuditRecord & { actorName?: string })[]
}

export default class AuditList extends BaseCommand<typeof AuditList> {
  static override summary = 'list audit events, newest first (who, what, where, result; never a value)'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --project homelab --last 50',
    '<%= config.bin %> <%= command.id %> --after 1200 --json',
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    after: Flags.integer({ summary: 'only events after this sequence number', default: 0, min: 0 }),
    last: Flags.integer({ summary: 'the newest N events', min: 1, max: 1000, exclusive: ['limit'] }),
    limit: Flags.integer({ summary: 'how many events (the newest; same as --last)', min: 1, max: 1000 }),
    project: Flags.string({ char: 'p', summary: 'project id or name [default: all projects]' }),
  }

  async run(): Promise<AuditListResult> {
    const { flags } = this
    const count = flags.last ?? flags.limit ?? 100
    const events = await adminListAudit(adminConnection(flags), {
      project: flags.project,
      afterSeq: flags.after,
      limit: count,
      newest: true,
    })
    if (!this.jsonEnabled() && events.length > 0) {
      const rows = events.map((event) => [
        String(event.seq),
        event.at,
        event.actorName ? `${event.actorName} (${event.actor})` : event.actor,
        event.action,
        event.environment ?? '-',
        event.target ?? '-',
        event.result,
      ])
      this.out(formatColumns(rows, ['SEQ', 'AT', 'ACTOR', 'ACTION', 'ENV', 'TARGET', 'RESULT']))
    }
    return { events }
  }
}
