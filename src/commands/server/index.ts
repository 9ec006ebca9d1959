import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../cli/base-command.js'
import { initDevProject } from '../../server/admin.js'
import { resolveServerConfig } from '../../server/config.js'
import { configSummary } from '../../server/config-summary.js'
import { startVault } from '../../server/server.js'
import { configFromFlags, serverFlags } from '../../server/settings.js'
import { readDevAdminPassword } from '../../cli/read-secret.js'

export interface ServerResult {
  url?: string
  config?: ReturnType<typeof configSummary>
}

export default class Server extends BaseCommand<typeof Server> {
  static override summary = 'run the vault server'
  static override description =
    'Serves the vault API under /api/v1. Every setting is a flag and an environment variable (see the flags: ' +
    'VAULT_DB_URL, VAULT_ENCRYPTION_KEY, VAULT_JWT_SECRET, each also from a file named by its _FILE twin such as ' +
    'VAULT_ENCRYPTION_KEY_FILE, SITE_URL, PUBLIC_VAULT_URL, SMTP_*, VAULT_*; the earlier DB_URL, ENCRYPTION_KEY and ' +
    'JWT_SECRET still work, with a warning). Plain HTTP only on ' +
    'loopback, with --dev, or with --behind-proxy; otherwise give --tls-cert and --tls-key. X-Forwarded-For is ' +
    'believed only from --trusted-proxies, and then its right-most untrusted hop is the client. --dev generates ' +
    'keys into a 0600 file of its data directory and keeps a SQLite database there. Prints "vault server ' +
    'listening on URL" on stderr when ready. --print-config shows the effective settings (keys as ' +
    "fingerprints) and exits. With --init-project, the admin account's console password comes from " +
    'VAULT_ADMIN_PASSWORD or stdin (--admin-password-stdin); without either it is random and never shown.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --dev --data-dir ./.vault-dev',
    '<%= config.bin %> <%= command.id %> --dev --init-project homelab --write-env ./stack',
    'VAULT_DB_URL=postgres://vault@db/vault <%= config.bin %> <%= command.id %> --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem',
    '<%= config.bin %> <%= command.id %> --behind-proxy --trusted-proxies 172.16.0.0/12 --port 8080',
    {
      command:
        'VAULT_ADMIN_PASSWORD="$ADMIN_PASSWORD" <%= config.bin %> <%= command.id %> --dev --init-project homelab',
      description: "the admin account's console password from the environment",
    },
    'printf %s "$ADMIN_PASSWORD" | <%= config.bin %> <%= command.id %> --dev --init-project homelab --admin-password-stdin',
    'VAULT_PORT=9000 <%= config.bin %> <%= command.id %> --dev --print-config --json',
    {
      command:
        'VAULT_ENCRYPTION_KEY_FILE=$CREDENTIALS_DIRECTORY/encryption-key VAULT_JWT_SECRET_FILE=$CREDENTIALS_DIRECTORY/jwt-secret <%= config.bin %> <%= command.id %>',
      description: "keys from systemd's LoadCredential",
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...serverFlags(),
    'admin-password': Flags.string({
      summary: 'the admin password on the command line (visible in process listings: avoid)',
      dependsOn: ['init-project'],
      exclusive: ['admin-password-stdin'],
    }),
    'admin-password-stdin': Flags.boolean({
      summary: "with --init-project: read the admin account's console password from stdin",
      dependsOn: ['init-project'],
    }),
    'init-project': Flags.string({
      summary: 'with --dev: create this project and its deployment identity at start',
    }),
    'print-config': Flags.boolean({
      summary: 'print the effective settings and exit (keys as fingerprints)',
    }),
    'write-env': Flags.directory({
      summary: "with --init-project: write the stack's .env here",
      dependsOn: ['init-project'],
    }),
  }

  async run(): Promise<ServerResult> {
    const flags = this.flags
    const config = resolveServerConfig(
      configFromFlags(flags, process.env, (line) => this.note(`warning: ${line}`)),
    )
    for (const warning of config.warnings ?? []) this.note(`warning: ${warning}`)
    if (flags['print-config']) {
      const summary = configSummary(config)
      if (!this.jsonEnabled()) this.out(JSON.stringify(summary, null, 2))
      return { config: summary }
    }
    if (config.devFiles) {
      const what = config.devFiles.generated
        ? 'generated ENCRYPTION_KEY and JWT_SECRET into'
        : 'using the keys in'
      this.note(`dev mode: ${what} ${config.devFiles.keyFile} (mode 600); database ${config.dbUrl}`)
    }
    const project = flags['init-project']
    const adminPassword = project
      ? await readDevAdminPassword({
          flag: flags['admin-password'],
          fromStdin: flags['admin-password-stdin'],
          env: process.env,
          warn: (line) => this.note(line),
        })
      : undefined
    const vault = await startVault(config)
    if (project) {
      const connection = { dbUrl: config.dbUrl, encryptionKey: config.encryptionKey.toString('hex') }
      const siteUrl = config.siteUrl ?? vault.url
      const init = await initDevProject(connection, {
        project,
        siteUrl,
        writeEnvDir: flags['write-env'],
        adminPassword,
      })
      this.note(
        init
          ? `dev mode: project ${init.projectName} (${init.projectId}), identity ${init.identityName}${init.credentialsFile ? `, credentials in ${init.credentialsFile}` : ''}`
          : `dev mode: project ${project} already exists; keeping it`,
      )
    }
    this.note(`console: ${vault.url}/`)
    this.note(`vault server listening on ${vault.url}`)
    await new Promise<void>((resolve) => {
      const stop = () => void vault.close().then(resolve)
      process.once('SIGTERM', stop)
      process.once('SIGINT', stop)
    })
    return { url: vault.url }
  }
}
