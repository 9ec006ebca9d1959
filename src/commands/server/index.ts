import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../base-command.js'
import { initDevProject } from '../../server/admin.js'
import { resolveServerConfig } from '../../server/config.js'
import { startVault } from '../../server/server.js'

export interface ServerResult {
  url: string
}

export default class Server extends BaseCommand<typeof Server> {
  static override summary = 'run the vault server'
  static override description =
    'Serves the vault API under /api/v1. Configuration comes from ENCRYPTION_KEY, JWT_SECRET, DB_URL, SITE_URL, ' +
    'PUBLIC_VAULT_URL and SMTP_* (environment or flags). Plain HTTP only on loopback, with --dev, or with ' +
    '--behind-proxy; otherwise give --tls-cert and --tls-key. --dev generates keys into a 0600 file of its data ' +
    'directory and keeps a SQLite database there. Prints "vault server listening on URL" on stderr when ready.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --dev --data-dir ./.vault-dev',
    '<%= config.bin %> <%= command.id %> --dev --init-project homelab --write-env ./stack',
    'DB_URL=postgres://vault@db/vault <%= config.bin %> <%= command.id %> --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem',
  ]
  static override flags = {
    'behind-proxy': Flags.boolean({
      summary: 'plain HTTP behind a TLS-terminating gateway; trusts X-Forwarded-*',
    }),
    'data-dir': Flags.directory({
      summary: 'with --dev: where the database and generated keys live [default: a temporary directory]',
    }),
    'db-url': Flags.string({ env: 'DB_URL', summary: 'sqlite:///path/vault.db, a path, or postgres://...' }),
    dev: Flags.boolean({
      summary: 'development mode: generated keys, SQLite in the data directory, plain HTTP',
    }),
    'encryption-key': Flags.string({
      env: 'ENCRYPTION_KEY',
      summary: '64 hex characters; prefer the environment variable',
    }),
    host: Flags.string({ env: 'VAULT_HOST', summary: 'address to listen on', default: '127.0.0.1' }),
    'init-project': Flags.string({
      summary: 'with --dev: create this project and its deployment identity at start',
    }),
    'jwt-secret': Flags.string({
      env: 'JWT_SECRET',
      summary: '64 hex characters; prefer the environment variable',
    }),
    port: Flags.integer({
      env: 'VAULT_PORT',
      summary: 'port to listen on (0: any free port)',
      default: 8200,
      min: 0,
      max: 65535,
    }),
    'public-vault-url': Flags.string({
      env: 'PUBLIC_VAULT_URL',
      summary: 'public https URL for the frontend',
    }),
    'site-url': Flags.string({ env: 'SITE_URL', summary: 'public https URL of the vault' }),
    'tls-cert': Flags.file({ summary: 'PEM certificate: serve HTTPS', dependsOn: ['tls-key'] }),
    'tls-key': Flags.file({ summary: 'PEM private key', dependsOn: ['tls-cert'] }),
    'write-env': Flags.directory({
      summary: "with --init-project: write the stack's .env here",
      dependsOn: ['init-project'],
    }),
  }

  async run(): Promise<ServerResult> {
    const flags = this.flags
    const config = resolveServerConfig({
      encryptionKey: flags['encryption-key'],
      jwtSecret: flags['jwt-secret'],
      dbUrl: flags['db-url'],
      siteUrl: flags['site-url'],
      publicVaultUrl: flags['public-vault-url'],
      smtpHost: process.env.SMTP_HOST,
      smtpPort: process.env.SMTP_PORT,
      smtpFrom: process.env.SMTP_FROM,
      host: flags.host,
      port: flags.port,
      dev: flags.dev,
      dataDir: flags['data-dir'],
      tlsCert: flags['tls-cert'],
      tlsKey: flags['tls-key'],
      behindProxy: flags['behind-proxy'],
    })
    if (config.devFiles) {
      const what = config.devFiles.generated
        ? 'generated ENCRYPTION_KEY and JWT_SECRET into'
        : 'using the keys in'
      this.note(`dev mode: ${what} ${config.devFiles.keyFile} (mode 600); database ${config.dbUrl}`)
    }
    const vault = await startVault(config)
    const project = flags['init-project']
    if (project) {
      const connection = { dbUrl: config.dbUrl, encryptionKey: config.encryptionKey.toString('hex') }
      const siteUrl = config.siteUrl ?? vault.url
      const init = await initDevProject(connection, { project, siteUrl, writeEnvDir: flags['write-env'] })
      this.note(
        init
          ? `dev mode: project ${init.projectName} (${init.projectId}), identity ${init.identityName}${init.envFile ? `, credentials in ${init.envFile}` : ''}`
          : `dev mode: project ${project} already exists; keeping it`,
      )
    }
    this.note(`vault server listening on ${vault.url}`)
    await new Promise<void>((resolve) => {
      const stop = () => void vault.close().then(resolve)
      process.once('SIGTERM', stop)
      process.once('SIGINT', stop)
    })
    return { url: vault.url }
  }
}
