import * as Flags from '@oclif/core/flags'
import { adminConnection, adminStoreFlags, BaseCommand } from '../../base-command.js'
import { UsageError } from '../../errors.js'
import { adminInit } from '../../server/admin.js'
import { readPipedValue } from '../../ui/read-secret.js'
import type { InitResult } from '../../server/bootstrap.js'

export type ServerInitResult = InitResult

export default class ServerInit extends BaseCommand<typeof ServerInit> {
  static override summary = 'set up a vault: admin account, project with environments, deployment identity'
  static override description =
    "The seed's setup wizard as a command: prompts on a terminal, flags for scripts. Creates the admin account, " +
    'a project with dev and prod (and staging on request) and the <project>-deployment identity with read and ' +
    'write on every environment. Its client secret is printed once, on stdout.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    'printf %s "$ADMIN_PASSWORD" | <%= config.bin %> <%= command.id %> --db-url sqlite:///var/lib/vault/vault.db --admin-user admin --admin-password-stdin --project homelab --site-url https://vault.example.com --write-env ./stack --json',
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    'admin-password-stdin': Flags.boolean({ summary: 'read the admin password from stdin' }),
    'admin-user': Flags.string({ summary: 'admin account name' }),
    environments: Flags.string({ summary: 'environments to create', default: 'dev,prod' }),
    project: Flags.string({ summary: 'project name' }),
    'site-url': Flags.string({
      env: 'SITE_URL',
      summary: 'public URL of the vault (VAULT_DOMAIN of the stack)',
    }),
    'write-env': Flags.directory({ summary: "write the stack's .env (mode 600) into this directory" }),
  }

  async run(): Promise<ServerInitResult> {
    const flags = this.flags
    const interactive = process.stdin.isTTY && !flags['admin-password-stdin']
    const { input, password } = await import('@inquirer/prompts')
    const ask = async (value: string | undefined, message: string, fallback?: string) => {
      if (value) return value
      if (!interactive)
        throw new UsageError(`${message} is required`, { hint: 'pass it as a flag when not on a terminal' })
      return input({ message, default: fallback })
    }
    const adminUser = await ask(flags['admin-user'], 'admin user name', 'admin')
    const adminPassword = flags['admin-password-stdin']
      ? await readPipedValue()
      : interactive
        ? await password({ message: 'admin password (at least 12 characters)', mask: true })
        : ''
    const project = await ask(flags.project, 'project name')
    const result = await adminInit(adminConnection(flags), {
      adminUser,
      adminPassword,
      project,
      environments: flags.environments
        .split(',')
        .map((slug) => slug.trim())
        .filter(Boolean),
      siteUrl: flags['site-url'],
      writeEnvDir: flags['write-env'],
    })
    if (!this.jsonEnabled()) {
      this.note(`project ${result.projectName} (${result.projectId}) with ${result.environments.join(', ')}`)
      this.note(`identity ${result.identityName}: the client secret below is shown once; store it now`)
      this.out(
        `VAULT_PROJECT_ID=${result.projectId}\nVAULT_CLIENT_ID=${result.clientId}\nVAULT_CLIENT_SECRET=${result.clientSecret}`,
      )
      if (result.envFile) this.note(`wrote ${result.envFile} (mode 600, listed in .gitignore)`)
    }
    return result
  }
}
