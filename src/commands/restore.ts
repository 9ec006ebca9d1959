import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { adminConnection, adminStoreFlags, BaseCommand, requireDbUrl } from '../cli/base-command.js'
import { restoreWithCompose } from '../backup/compose-restore.js'
import { restoreSummary, verifyListing } from '../backup/report.js'
import { restoreArchive, type RestoreResult } from '../backup/restore.js'
import { verifyArchive, type VerifyResult } from '../backup/verify.js'

export default class Restore extends BaseCommand<typeof Restore> {
  static override summary = 'restore a vault backup archive, or check one with --verify'
  static override description =
    "Checks the archive's MAC (a key derived from the configured ENCRYPTION_KEY, as for vault server), its " +
    'checksums and size (a gzip bomb is refused at --max-inflated-mib) before touching anything, streams it into ' +
    'a temporary database, checks it (content, trial decryption of every version, audit chain and head, row ' +
    'MACs, an audit event for every version), then swaps it in. --verify needs ENCRYPTION_KEY too. Stopped at any point, it leaves ' +
    'the previous data intact. SQLite: stop the server first (a running server is detected and refused); ' +
    'the previous file is kept as <db>.pre-restore-<time>. PostgreSQL: one transaction. --compose runs ' +
    "the seed's container procedure: stop the vault service, start only the database, wait until it " +
    'answers, restore, start the vault. Over the same vault, the revocations the live database made after the ' +
    'backup are kept (revoked identities and tokens, rotated client secrets, changed passwords, removed ' +
    'accounts), so a restore never brings back a credential that was retired; they are counted in the output ' +
    'and the restored audit log. A database that holds another vault (another key) is refused unless it is named ' +
    'with --replace-vault and its key fingerprint.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> --verify vault.jsonl.gz',
      description: 'check and list an archive',
    },
    {
      command: '<%= config.bin %> <%= command.id %> vault.jsonl.gz --db-url postgres://vault@127.0.0.1/vault',
      description: 'restore (also across engines)',
    },
    {
      command: '<%= config.bin %> <%= command.id %> vault.jsonl.gz --replace-vault 0123456789abcdef',
      description: 'restore over a database that holds another vault (the fingerprint the refusal named)',
    },
    {
      command: '<%= config.bin %> <%= command.id %> vault.jsonl.gz --compose --compose-dir /srv/stack',
      description: 'stop vault, start the db, wait, restore, start vault',
    },
  ]
  static override enableJsonFlag = true
  static override args = {
    file: Args.file({ required: true, description: 'archive written by vault backup' }),
  }
  static override flags = {
    ...adminStoreFlags,
    compose: Flags.boolean({
      summary: 'run the container procedure with the compose client',
      exclusive: ['verify'],
    }),
    'compose-dir': Flags.directory({
      summary: 'compose project directory',
      default: '.',
    }),
    'compose-file': Flags.file({
      char: 'f',
      summary: 'compose file (repeatable)',
      multiple: true,
      dependsOn: ['compose'],
    }),
    'db-service': Flags.string({
      summary: 'compose service of the database',
      default: 'db',
    }),
    'ready-timeout': Flags.integer({ summary: 'seconds to wait for the database', default: 60, min: 1 }),
    'vault-service': Flags.string({
      summary: 'compose service of the vault',
      default: 'vault',
    }),
    'replace-vault': Flags.string({
      summary:
        "replace the other vault the database holds, named by its key fingerprint (that vault's data is lost)",
      exclusive: ['verify'],
    }),
    verify: Flags.boolean({ summary: 'only check the archive and list what it holds (names and counts)' }),
    'max-inflated-mib': Flags.integer({
      summary: 'refuse an archive that inflates to more than this many MiB (a gzip bomb guard)',
      description:
        'The default, 64, holds about 130,000 audit events; restore and --verify take about 90 MB of memory at that size, ' +
        'and their memory does not grow with the archive (the cap bounds the time and disk a gzip bomb costs). ' +
        'Raise it only for a genuine archive that vault backup said is larger.',
      default: 64,
      min: 1,
      max: 4096,
    }),
  }

  async run(): Promise<RestoreResult | VerifyResult> {
    const { flags } = this
    const encryptionKey = adminConnection(this.flags).encryptionKey
    if (flags.verify) {
      const result = await verifyArchive(this.args.file, encryptionKey, flags['max-inflated-mib'])
      if (!this.jsonEnabled()) this.out(verifyListing(result).join('\n'))
      return result
    }
    const options = {
      file: this.args.file,
      dbUrl: requireDbUrl(flags),
      encryptionKey,
      maxInflatedMib: flags['max-inflated-mib'],
      replaceVault: flags['replace-vault'],
      step: (message: string) => this.note(`==> ${message}`),
      progress: (table: string, rows: number) => {
        if (process.stderr.isTTY || rows >= 5000) this.note(`    loaded ${table}: ${rows} rows`)
      },
    }
    const result = flags.compose
      ? await restoreWithCompose({
          ...options,
          composeDir: flags['compose-dir'],
          composeFiles: flags['compose-file'],
          vaultService: flags['vault-service'],
          databaseService: flags['db-service'],
          readyTimeoutMs: flags['ready-timeout'] * 1000,
        })
      : await restoreArchive(options)
    for (const line of restoreSummary(result, flags.compose)) this.note(line)
    return result
  }
}
