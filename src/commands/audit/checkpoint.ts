import { adminConnection, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminAuditCheckpoint } from '../../server/admin.js'
import type { AuditCheckpoint } from '../../server/audit/audit-checkpoint.js'

export type AuditCheckpointResult = AuditCheckpoint

export default class AuditCheckpointCommand extends BaseCommand<typeof AuditCheckpointCommand> {
  static override summary = 'print a signed head of the audit log, to keep somewhere else'
  static override description =
    'Verifies the whole audit chain, then prints one line holding the event count, the last hash, the time ' +
    'and a MAC under the vault key. Keep it off the vault host (a ticket, another machine, a password ' +
    'manager); vault audit verify --against FILE later proves the log still holds every event it saw, ' +
    'which catches a tail cut back to an older head. Refuses to sign a broken log.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> >> /mnt/offsite/audit-checkpoints.txt',
      description: 'append a checkpoint to a file kept elsewhere',
    },
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags }

  async run(): Promise<AuditCheckpointResult> {
    const result = await adminAuditCheckpoint(adminConnection(this.flags))
    if (!this.jsonEnabled()) {
      this.out(result.checkpoint)
      this.note(`checkpoint of ${result.events} events signed; keep the line above off the vault host`)
    }
    return result
  }
}
