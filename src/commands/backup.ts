import * as Flags from '@oclif/core/flags'
import { adminConnection, adminStoreFlags, BaseCommand, requireDbUrl } from '../cli/base-command.js'
import { backupDatabase, type BackupResult } from '../backup/backup.js'
import { backupSummary } from '../backup/report.js'

export type { BackupResult } from '../backup/backup.js'

export default class Backup extends BaseCommand<typeof Backup> {
  static override summary = "write a consistent, checked archive of the vault server's database"
  static override description =
    'Takes a consistent snapshot while the server keeps running (one read transaction: WAL on SQLite, ' +
    'REPEATABLE READ on PostgreSQL) and writes it as a gzip-compressed archive with a manifest (format, ' +
    'schema and app version, time, key fingerprint, row counts) and checksums, mode 600, atomically. ' +
    'Values stay encrypted: ENCRYPTION_KEY is not in the archive and must be kept apart. The archive path ' +
    'is printed on stdout; progress and the summary go to stderr.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> --db-url sqlite:///var/lib/vault/vault.db',
      description: 'back up to vault-backup-<time>.jsonl.gz in the current directory',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --output /backups/vault.jsonl.gz --copy-to /mnt/offsite',
      description: 'write the archive and a verified copy off the host',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    'copy-to': Flags.directory({
      summary: 'also copy the archive into this directory and verify the copy (repeatable)',
      multiple: true,
    }),
    output: Flags.file({ char: 'o', summary: 'archive path [default: ./vault-backup-<time>.jsonl.gz]' }),
  }

  async run(): Promise<BackupResult> {
    const dbUrl = requireDbUrl(this.flags)
    const showProgress = process.stderr.isTTY === true
    const result = await backupDatabase({
      dbUrl,
      output: this.flags.output,
      copyTo: this.flags['copy-to'],
      encryptionKey: adminConnection(this.flags).encryptionKey,
      progress: (table, rows) => {
        if (showProgress || rows >= 5000) this.note(`  read ${table}: ${rows} rows`)
      },
    })
    if (!this.jsonEnabled()) this.out(result.path)
    for (const line of backupSummary(result)) this.note(line)
    return result
  }
}
