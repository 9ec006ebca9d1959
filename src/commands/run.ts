import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag, fallbackFlags } from '../cli/base-command.js'
import { profileFlag } from '../compose/profile-flag.js'
import { resolveConnectionSettings } from '../client/connect.js'
import { UsageError } from '../errors.js'
import { prepareRun, type RunOptions } from '../flows/run.js'
import { allowEnvFlag } from '../cli/allow-env-flag.js'

export default class Run extends BaseCommand<typeof Run> {
  static override summary = "run a command with the environment's secrets in its environment"
  static override description =
    'The vault wins over the host environment unless --prefer-host-env is given. The child never ' +
    "receives VAULT_CLIENT_SECRET or an access token, nor the host's ENCRYPTION_KEY, JWT_SECRET or DB_URL (the " +
    "vault server's keys; a vault secret of that name is passed) unless --allow-env names it. Signals are forwarded as a terminal user expects " +
    "(one Ctrl-C reaches compose once), and the exit code is the child's (128+N when a signal ends it). " +
    'A secret whose name controls the host (PATH, HOME, SHELL, IFS, ENV, BASH_ENV, PS4, LD_*, DYLD_*, ' +
    'NODE_OPTIONS, NODE_PATH, PYTHON*, PERL5*, RUBY*, GIT_*, SSH_*, DOCKER_*, COMPOSE_*, VAULT_*, proxies, ' +
    'pagers and editors) is refused (exit 4, nothing started) unless --allow-env names it.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> --env dev -- docker compose up -d',
      description: 'start a stack',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> --env prod --check --only-referenced -- docker compose up -d',
      description: 'only the variables the compose files use, after a preflight',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --env dev --watch -- docker compose up -d',
      description: 'start a stack; recreate the services that use a secret whenever it changes',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --env dev --watch -- node server.js',
      description: 'restart a command with the new values whenever a secret changes',
    },
  ]
  static override strict = false
  static override flags = {
    ...connectionFlags,
    ...fallbackFlags,
    'allow-env': allowEnvFlag(
      "let a secret whose name controls the host (DOCKER_HOST, COMPOSE_*, ...), or the host's ENCRYPTION_KEY, JWT_SECRET or DB_URL, reach the child",
    ),
    check: Flags.boolean({
      summary: 'run the render preflight first; refuse to start when a required variable is missing',
    }),
    env: envFlag,
    file: Flags.string({
      char: 'f',
      summary: 'compose file for --check/--only-referenced (repeatable)',
      multiple: true,
    }),
    mask: Flags.boolean({
      summary: "replace secret values in the child's output with ******** (default: when not a terminal)",
      allowNo: true,
    }),
    'only-referenced': Flags.boolean({ summary: 'inject only the variables the compose files reference' }),
    'prefer-host-env': Flags.boolean({ summary: 'host environment values win over the vault' }),
    profile: profileFlag,
    watch: Flags.boolean({
      summary:
        'follow the change feed: a compose `up` recreates the services using a changed secret; any other command restarts',
    }),
  }

  async run(): Promise<void> {
    const { argv } = await this.parse(Run)
    // oclif's non-strict parse reorders words after `--` (`sh -c 'x "$1"' sh f` became `sh sh -c ...`):
    // the child's command line is taken verbatim from after the first `--` when there is one.
    const [command, ...args] = childCommandLine(this.argv, argv as string[])
    if (!command)
      throw new UsageError('no command given', { hint: 'vault run --env dev -- <command> [args...]' })
    const settings = await resolveConnectionSettings(this.flags, (line) => this.note(line))
    const runOptions: RunOptions = {
      environment: this.flags.env,
      preferHost: this.flags['prefer-host-env'],
      allowEnv: this.flags['allow-env'],
      onlyReferenced: this.flags['only-referenced'],
      check: this.flags.check,
      composeFiles: this.flags.file,
      profiles: this.flags.profile,
      composeDir: this.flags['stack-dir'],
      mask: this.flags.mask,
      fallback: this.fallbackPolicy((line) => this.note(line)),
      warn: (line) => this.note(`Warning: ${line}`),
    }
    if (this.flags.watch) {
      const { runWatching } = await import('../flows/watch.js')
      process.exitCode = await runWatching(command, args, {
        settings,
        environment: this.flags.env,
        prepare: () => prepareRun(settings, runOptions),
        note: (line) => this.note(line),
        composeDir: this.flags['stack-dir'],
        composeFiles: this.flags.file,
        allowEnv: this.flags['allow-env'],
      })
      return
    }
    const run = await prepareRun(settings, runOptions)
    process.exitCode = await run.start(command, args)
  }
}

/**
 * The child's command line: the words after the first `--` when that `--` is the separator (oclif's
 * positional words are exactly those words, in some order), else oclif's positional words.
 */
function childCommandLine(raw: readonly string[], parsed: readonly string[]): string[] {
  const separator = raw.indexOf('--')
  if (separator < 0) return [...parsed]
  const after = raw.slice(separator + 1)
  const same =
    after.length === parsed.length && [...after].sort().join('\0') === [...parsed].sort().join('\0')
  return same ? after : [...parsed]
}
