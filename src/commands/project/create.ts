import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { adminConnection, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminCreateProject, type ProjectCreateResult } from '../../server/admin.js'

/** The result; the client secret only when no credentials file holds it (--write-env). */
export type ProjectCreateOutput = Omit<ProjectCreateResult, 'clientSecret'> & { clientSecret?: string }

export default class ProjectCreate extends BaseCommand<typeof ProjectCreate> {
  static override summary = "create a stack's project: environments, deployment identity, credentials file"
  static override description =
    'For a second (third, ...) stack on a vault that server init already set up: creates the project with ' +
    'its environments and the <project>-deployment identity with read and write on each, and with ' +
    "--write-env writes the stack's DIR/.vault/credentials (mode 600; compose never reads it) as server init " +
    'does. The client secret goes into that file only; without --write-env it is printed once, on stdout. ' +
    'Opens the vault database directly (DB_URL, ENCRYPTION_KEY).'
  static override examples = [
    {
      command:
        '<%= config.bin %> <%= command.id %> media --site-url https://vault.example.com --write-env /srv/stacks/media',
      description: 'a second stack, with dev, staging and prod',
    },
    {
      command: '<%= config.bin %> <%= command.id %> ci-runners --environments prod --json',
      description: 'one environment; the client secret in the JSON result',
    },
  ]
  static override args = {
    name: Args.string({ required: true, description: 'project name (letters, digits, -, _ and .)' }),
  }
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    environments: Flags.string({ summary: 'environments to create', default: 'dev,staging,prod' }),
    'site-url': Flags.string({
      env: 'SITE_URL',
      summary: 'public URL of the vault (VAULT_DOMAIN of the stack); needed by --write-env',
    }),
    'write-env': Flags.directory({
      summary:
        "write the stack's credentials file (DIR/.vault/credentials, mode 600; compose never reads it)",
    }),
  }

  async run(): Promise<ProjectCreateOutput> {
    const { flags } = this
    const result = await adminCreateProject(adminConnection(flags), {
      project: this.args.name,
      environments: flags.environments
        .split(',')
        .map((slug) => slug.trim())
        .filter(Boolean),
      siteUrl: flags['site-url'],
      writeEnvDir: flags['write-env'],
    })
    const { clientSecret, ...stored } = result
    if (!this.jsonEnabled()) {
      this.note(`project ${result.projectName} (${result.projectId}) with ${result.environments.join(', ')}`)
      if (result.credentialsFile)
        this.note(
          `identity ${result.identityName}: its client secret is in ${result.credentialsFile} (mode 600; compose never reads it; .vault/ listed in .gitignore)`,
        )
      else {
        this.note(`identity ${result.identityName}: the client secret below is shown once; store it now`)
        this.out(
          `VAULT_PROJECT_ID=${result.projectId}\nVAULT_CLIENT_ID=${result.clientId}\nVAULT_CLIENT_SECRET=${clientSecret}`,
        )
      }
    }
    return result.credentialsFile ? stored : result
  }
}
