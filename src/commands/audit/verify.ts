import * as Flags from '@oclif/core/flags'
import { readFile } from 'node:fs/promises'
import { adminConnection, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { IntegrityError, NotFoundError } from '../../errors.js'
import { adminVerifyAudit, adminVerifyAuditAgainst } from '../../server/admin.js'
import type { CheckpointVerification } from '../../server/audit/audit-checkpoint.js'
import { integrityProblems, type IntegrityReport } from '../../server/keys/integrity.js'
import { readPipedValue } from '../../cli/read-secret.js'

export type AuditVerifyResult = IntegrityReport | CheckpointVerification

export default class AuditVerify extends BaseCommand<typeof AuditVerify> {
  static override summary =
    'check the audit log and the protected rows (edits, insertions, deletions, truncation)'
  static override description =
    'Walks the hash chain of the audit log and checks its MAC-protected head (a truncated tail or a wiped ' +
    'log shows), the MACs of the security-relevant rows (identity permissions and client-secret hashes, ' +
    'secret version pointers, webhook URLs) and that every secret version has the audit event that wrote ' +
    'it. With --against, checks the log against a checkpoint printed earlier by vault audit checkpoint ' +
    'and kept elsewhere. Exits 8 on any finding.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      command: '<%= config.bin %> <%= command.id %> --against /mnt/offsite/audit-checkpoint.txt',
      description: 'check that the log still holds everything the checkpoint saw',
    },
    {
      command: 'ssh backup-host cat audit-checkpoint.txt | <%= config.bin %> <%= command.id %> --against -',
      description: 'read the checkpoint from stdin',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    against: Flags.string({
      summary: 'a checkpoint file from vault audit checkpoint, or - for stdin',
      helpValue: 'FILE|-',
    }),
  }

  async run(): Promise<AuditVerifyResult> {
    const { flags } = this
    if (flags.against !== undefined) {
      const text = await readCheckpoint(flags.against)
      const result = await adminVerifyAuditAgainst(adminConnection(flags), text)
      if (!result.ok) {
        throw new IntegrityError(
          `the audit log fails its checkpoint at event ${result.brokenAt}: ${result.reason}`,
          {
            hint: 'the audit table was changed outside the vault; compare with a backup',
          },
        )
      }
      if (!this.jsonEnabled()) {
        this.note(
          `audit log matches the checkpoint of ${result.against.at} (${result.against.events} events; ${result.events} now)`,
        )
      }
      return result
    }
    const report = await adminVerifyAudit(adminConnection(flags))
    const problems = integrityProblems(report)
    if (problems.length > 0) {
      throw new IntegrityError(`the vault database was changed outside the vault: ${problems.join('; ')}`, {
        hint: 'compare with a backup and restore it (vault restore); keep checkpoints with vault audit checkpoint',
      })
    }
    if (!this.jsonEnabled()) {
      this.note(
        `audit chain intact: ${report.audit.events} events; protected rows and version events check out`,
      )
    }
    return report
  }
}

async function readCheckpoint(source: string): Promise<string> {
  if (source === '-') return readPipedValue()
  try {
    return await readFile(source, 'utf8')
  } catch (error) {
    throw new NotFoundError(`cannot read the checkpoint ${source}: ${(error as Error).message}`, {
      hint: 'pass the file written from vault audit checkpoint, or - for stdin',
    })
  }
}
