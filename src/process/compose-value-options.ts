/**
 * The global options of compose that take a value, in one place: whatever reads a compose command
 * line (compose-command.ts for `vault run --watch`, compose-secret-files.ts for compose v1's secret
 * files) must skip an option's value to find the subcommand (`docker-compose -H tcp://h up`).
 * test/unit/process/compose-value-options.test.ts compares the v1 list with `docker-compose --help`.
 */

/** docker-compose v1 (1.29): the options of `docker-compose --help` shown with a value. */
export const composeV1ValueOptions: readonly string[] = [
  '-f',
  '--file',
  '-p',
  '--project-name',
  '--profile',
  '-c',
  '--context',
  '--log-level',
  '--ansi',
  '-H',
  '--host',
  '--tlscacert',
  '--tlscert',
  '--tlskey',
  '--project-directory',
  '--env-file',
]

/** The compose v2 plugin (`docker compose --help`, 2.x): those it adds to v1's. */
export const composeV2OnlyValueOptions: readonly string[] = ['--progress', '--parallel']

/** Either version's global options that take a value (an option one version lacks is refused by it). */
export const composeValueOptions: ReadonlySet<string> = new Set([
  ...composeV1ValueOptions,
  ...composeV2OnlyValueOptions,
])
