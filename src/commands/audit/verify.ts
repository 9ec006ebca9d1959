import { adminConnection, adminStoreFlags, BaseCommand } from '../../base-command.js'
import { IntegrityError } from '../../errors.js'
import { adminVerifyAudit } from '../../server/admin.js'
import type { AuditVerification } from '../../server/audit.js'

export type AuditVerifyResult = AuditVerification

export default class AuditVerify extends BaseCommand<typeof AuditVerify> {
  static override summary = 'check the hash chain of the audit log (edits, insertions and deletions show)'
  static override examples = ['<%= config.bin %> <%= command.id %>']
  static override enableJsonFlag = true
  static override flags = { ...adminStoreFlags }

  async run(): Promise<AuditVerifyResult> {
    const { flags } = this
    const result = await adminVerifyAudit(adminConnection(flags))
    if (!result.ok) {
      throw new IntegrityError(`the audit chain is broken at event ${result.brokenAt}: ${result.reason}`, {
        hint: 'the audit table was changed outside the vault; compare with a backup',
      })
    }
    if (!this.jsonEnabled()) this.note(`audit chain intact: ${result.events} events`)
    return result
  }
}
