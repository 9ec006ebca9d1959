import * as Flags from '@oclif/core/flags'
import { adminConnection, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { UsageError } from '../../errors.js'
import { adminInit } from '../../server/admin.js'
import { readPipedValue } from '../../cli/read-secret.js'
import type { InitResult } from '../../server/bootstrap.js'

/** The result; the client secret only when no credentials file holds it (--write-env). */
export type ServerInitResult = Omit<InitResult, 'clientSecret'> & { clientSecret?: string }

export default class ServerInit extends BaseCommand<typeof ServerInit> {
  static override summary = 'set up a vault: admin account, project with environments, deployment identity'
  static override description =
    "The seed's setup wizard as a command: prompts on a terminal, flags for scripts. Creates the admin account, " +
    'a project with dev and prod (and staging on request) and the <project>-deployment identity with read and ' +
    "write on every environment. With --write-env its client secret goes into the stack's credentials file " +
    'only; without, it is printed once, on stdout.'
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
    'write-env': Flags.directory({
      summary:
        "write the stack's credentials file (DIR/.vault/credentials, mode 600; compose never reads it)",
    }),
  }

  async run(): Promise<ServerInitResult> {
    const flags = this.flags
    const interactive = Boolean(process.stdin.isTTY) && !flags['admin-password-stdin']
    const { input } = await import('@inquirer/prompts')
    const ask = async (value: string | undefined, message: string, flag: string, fallback?: string) => {
      if (value) return value
      if (!interactive) throw new UsageError(`${message} is required (${flag})`, { hint: scriptHint })
      return input({ message, default: fallback }, { output: process.stderr })
    }
    const adminUser = await ask(flags['admin-user'], 'admin user name', '--admin-user', 'admin')
    const adminPassword = flags['admin-password-stdin']
      ? await readPipedValue()
      : interactive
        ? await askConfirmedPassword()
        : ''
    if (!adminPassword && !interactive)
      throw new UsageError(
        flags['admin-password-stdin']
          ? 'no admin password on stdin (--admin-password-stdin)'
          : 'no admin password: not on a terminal and no --admin-password-stdin',
        { hint: scriptHint },
      )
    const project = await ask(flags.project, 'project name', '--project')
    const siteUrl =
      flags['site-url'] ??
      (interactive && flags['write-env']
        ? await input({ message: 'public URL of the vault (VAULT_DOMAIN)' }, { output: process.stderr })
        : undefined)
    const result = await adminInit(adminConnection(flags), {
      adminUser,
      adminPassword,
      project,
      environments: flags.environments
        .split(',')
        .map((slug) => slug.trim())
        .filter(Boolean),
      siteUrl,
      writeEnvDir: flags['write-env'],
    })
    const { clientSecret, ...stored } = result
    if (!this.jsonEnabled()) {
      this.note(`project ${result.projectName} (${result.projectId}) with ${result.environments.join(', ')}`)
      if (result.credentialsFile) {
        this.note(
          `identity ${result.identityName}: its client secret is in ${result.credentialsFile} (mode 600; compose never reads it; .vault/ listed in .gitignore)`,
        )
      } else {
        this.note(`identity ${result.identityName}: the client secret below is shown once; store it now`)
        const domain = siteUrl
          ? `VAULT_DOMAIN=${siteUrl}`
          : "VAULT_DOMAIN=<the vault's URL: no --site-url was given>"
        this.out(
          `${domain}\nVAULT_PROJECT_ID=${result.projectId}\nVAULT_CLIENT_ID=${result.clientId}\nVAULT_CLIENT_SECRET=${clientSecret}`,
        )
        this.note("put these lines in the stack's .vault/credentials (mode 600), never in .env")
      }
    }
    return result.credentialsFile ? stored : result
  }
}

const scriptHint =
  'from a script: printf %s "$ADMIN_PASSWORD" | vault server init --admin-password-stdin --admin-user admin --project NAME --site-url URL [--write-env DIR] --json'

/** Asks for the admin password twice on the terminal until both answers match. */
async function askConfirmedPassword(): Promise<string> {
  const { password } = await import('@inquirer/prompts')
  for (;;) {
    const first = await password(
      { message: 'admin password (at least 12 characters)', mask: true },
      { output: process.stderr },
    )
    const second = await password({ message: 'admin password again', mask: true }, { output: process.stderr })
    if (first === second) return first
    process.stderr.write('the two passwords differ; try again\n')
  }
}
