import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag, fallbackFlags } from '../cli/base-command.js'
import { profileFlag } from '../compose/profile-flag.js'
import { formatRenderReport } from '../compose/report.js'
import type { SecretLayer } from '../compose/secret-layer.js'
import { renderStack, type RenderMode, type RenderResult } from '../compose/render.js'
import { ExitCode } from '../errors.js'
import { hostEnvironment, serverSettingValues } from '../process/withheld-variables.js'
import { allowEnvFlag } from '../cli/allow-env-flag.js'

export type { RenderResult }

export default class Render extends BaseCommand<typeof Render> {
  static override summary = "print the stack's compose configuration with every variable substituted"
  static override description =
    'Loads the compose files as `docker compose config` does (-f files merged, include, extends, profiles, env_file, .env or ' +
    "--env-file, the process environment without VAULT_CLIENT_SECRET, tokens and the vault server's ENCRYPTION_KEY, JWT_SECRET " +
    'and DB_URL unless --allow-env names them) and prints the result with `$` written as `$$`. With --env the ' +
    "vault's secrets of that environment are the top layer. --check lists every problem at once (with docker-compose v1, also every key v1 refuses)."
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> --env dev', description: 'render with the dev secrets' },
    {
      command: '<%= config.bin %> <%= command.id %> --env prod --check',
      description: 'preflight before `up`',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --who-uses DATABASE_PASSWORD',
      description: 'who uses it',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --env prod --profile monitoring --check',
      description: 'check the services of the monitoring profile too',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --file compose.yaml --file prod.yaml --format json',
      description: 'two files merged, as JSON',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...connectionFlags,
    ...fallbackFlags,
    'allow-env': allowEnvFlag(
      "interpolate with the host's ENCRYPTION_KEY, JWT_SECRET or DB_URL (withheld: the vault server's keys)",
    ),
    check: Flags.boolean({
      summary: 'list every problem (errors, warnings, info) instead of rendering; exit 10 on errors',
    }),
    env: envFlag,
    'env-file': Flags.string({
      summary: 'env file instead of the project .env (repeatable)',
      multiple: true,
    }),
    file: Flags.string({
      char: 'f',
      summary: 'compose file (repeatable; default: discovery)',
      multiple: true,
    }),
    format: Flags.option({ options: ['yaml', 'json', 'source'] as const })({
      summary:
        "output format: compose v2's normalised model as yaml or json, or source (the loaded files, less expanded)",
      default: 'yaml',
    }),
    interpolate: Flags.boolean({
      summary: 'substitute variables (--no-interpolate prints the raw model)',
      allowNo: true,
      default: true,
    }),
    mask: Flags.boolean({ summary: 'print values that came from the vault as ********' }),
    profile: profileFlag,
    'prefer-host-env': Flags.boolean({ summary: "let the process environment win over the vault's secrets" }),
    'project-directory': Flags.directory({
      summary: "project directory (default: the first file's directory)",
    }),
    'project-name': Flags.string({ char: 'p', summary: 'project name', env: 'COMPOSE_PROJECT_NAME' }),
    variables: Flags.boolean({ summary: 'list the referenced variables with defaults and required flags' }),
    'who-uses': Flags.string({
      summary:
        'list the services and places that use this variable (with --env, also through the templates naming it)',
    }),
  }

  async run(): Promise<RenderResult> {
    const { flags } = this
    const mode: RenderMode = flags.check
      ? 'check'
      : flags['who-uses']
        ? 'who-uses'
        : flags.variables
          ? 'variables'
          : 'config'
    const secretLayer = flags.env ? await this.vaultSecretLayer() : undefined
    const composeClient = flags.check ? await this.composeClientVersion() : undefined
    const result = await renderStack(
      {
        mode,
        files: flags.file,
        envFiles: flags['env-file'],
        projectDirectory: flags['project-directory'],
        projectName: flags['project-name'],
        profiles: flags.profile,
        vaultEnvironment: flags.env,
        preferHostEnv: flags['prefer-host-env'],
        interpolate: flags.interpolate,
        mask: flags.mask,
        format: flags.format,
        variable: flags['who-uses'],
        composeClient,
        environment: hostEnvironment(process.env, flags['allow-env']),
        serverSettings: flags.check ? serverSettingValues(process.env) : undefined,
      },
      secretLayer,
    )
    if (result.kind === 'config') {
      for (const message of new Set(result.warnings.map((warning) => warning.message)))
        this.note(`Warning: ${message}`)
    }
    if (result.kind === 'check' && !result.ok) process.exitCode = ExitCode.findings
    if (!this.jsonEnabled()) process.stdout.write(formatRenderReport(result, process.cwd()))
    return result
  }

  /** The version of the compose client that `up` would use (v1 refuses v2-only keys). */
  private async composeClientVersion(): Promise<'v1' | 'v2' | undefined> {
    const { detectComposeClient } = await import('../process/compose.js')
    return (await detectComposeClient())?.version
  }

  private async vaultSecretLayer(): Promise<SecretLayer> {
    const { resolveConnectionSettings } = await import('../client/connect.js')
    const { createSecretLayer } = await import('../delivery/secret-layer.js')
    const warn = (line: string) => this.note(line)
    const fallback = this.fallbackPolicy(warn)
    return createSecretLayer(await resolveConnectionSettings(this.flags, warn), fallback)
  }
}
