import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../cli/base-command.js'
import { connect } from '../client/connect.js'
import { ExitCode, UsageError } from '../errors.js'
import type { ScanResult } from '../scan/scan.js'
import type { LeftToClean, ScanRotation } from '../scan/rotate-found.js'

export default class Scan extends BaseCommand<typeof Scan> {
  static override summary = 'find where a secret value leaked: git history, files, logs, images, containers'
  static override description =
    'Searches for the current and past values of every secret the identity can read in --env, as written ' +
    'and base64 (standard and URL-safe, at any offset of a longer stream), URL-encoded or JSON-escaped, in ' +
    'one pass per input. Values under 8 characters are not searched (their count is noted). Sources: --git ' +
    'DIR (every commit of every ref, deleted files included; each value at the first commit per path), ' +
    "--staged (git's index, for a pre-commit hook), --path (files), --stdin (a log), --engine ADDR (image " +
    'history and config, container labels, commands and logs, and container Env where the stack is not ' +
    'meant to hold that value). A finding names the secret, version, encoding and place, never the value. ' +
    'Exits 10 when something is found, 0 when clean. --rotate rotates each secret whose current value was ' +
    'found as vault rotate does, then lists what is left to clean.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> --env prod --git .',
      description: 'search every commit of every branch and tag',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --env prod --staged',
      description: 'pre-commit hook: refuse a commit that holds a value (see examples/pre-commit)',
    },
    {
      command: 'docker compose logs --no-color | <%= config.bin %> <%= command.id %> --env prod --stdin',
      description: 'search a log',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --env prod --engine unix:///var/run/docker.sock --json',
      description: 'search images (build arguments, ENV) and containers, as JSON',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --env prod --git . --path deploy-logs --rotate',
      description: 'rotate what leaked, recreate its services, and list the commits and images to clean',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...connectionFlags,
    'allow-env': Flags.string({
      summary: 'with --rotate: let a secret whose name controls the host reach compose',
      multiple: true,
      multipleNonGreedy: true,
      delimiter: ',',
    }),
    engine: Flags.string({
      summary: 'Docker engine or vault proxy to search (unix:///path or tcp://127.0.0.1:PORT)',
    }),
    env: envFlag,
    file: Flags.string({
      char: 'f',
      summary: 'compose file (repeatable; default: discovery in --stack-dir)',
      multiple: true,
    }),
    git: Flags.directory({
      summary: 'git repository whose whole history (all refs) is searched',
      exists: true,
    }),
    path: Flags.string({ summary: 'file or directory to search (repeatable)', multiple: true }),
    rotate: Flags.boolean({
      summary: 'rotate each secret whose current value was found, as vault rotate does',
    }),
    stable: Flags.integer({
      summary: 'with --rotate: seconds a service must run to count as ready',
      default: 10,
      min: 0,
    }),
    staged: Flags.boolean({ summary: "search git's index (of --git, or the current directory)" }),
    stdin: Flags.boolean({ summary: 'search standard input' }),
    wait: Flags.integer({
      summary: 'with --rotate: seconds to wait for recreated services',
      default: 60,
      min: 0,
    }),
  }

  async run(): Promise<ScanResult & { rotated?: ScanRotation[]; leftToClean?: LeftToClean }> {
    const { flags } = this
    if (!flags.git && !flags.staged && !flags.path && !flags.stdin && !flags.engine)
      throw new UsageError('name what to search: --git DIR, --staged, --path P, --stdin or --engine ADDR', {
        hint: 'vault scan --env dev --git .',
      })
    const note = (line: string) => this.note(line)
    const { api } = await connect(flags, note)
    const { loadSecretValues } = await import('../scan/secret-values.js')
    const { secrets, values } = await loadSecretValues(api, flags.env)
    const currentValues = Object.fromEntries(values.filter((v) => v.current).map((v) => [v.name, v.value]))
    const { stackExpectation } = await import('../scan/stack-expectation.js')
    const { scanForSecrets } = await import('../scan/scan.js')
    const common = { stackDir: flags['stack-dir'], composeFiles: flags.file }
    const result = await scanForSecrets(values, {
      environment: flags.env,
      secrets,
      sources: {
        git: flags.git,
        staged: flags.staged ? (flags.git ?? '.') : undefined,
        paths: flags.path,
        stdin: flags.stdin ? process.stdin : undefined,
        engine: flags.engine,
      },
      expectedEnv: flags.engine
        ? await stackExpectation({ ...common, secrets: currentValues, note })
        : () => false,
      note,
    })
    const { formatScanReport, formatCleanupReport } = await import('../scan/report.js')
    if (!this.jsonEnabled()) this.out(formatScanReport(result))
    if (result.findings.length > 0) process.exitCode = ExitCode.findings
    if (!flags.rotate) return result
    const { leftToClean, rotateFound } = await import('../scan/rotate-found.js')
    const rotated = await rotateFound(api, result.findings, {
      ...common,
      environment: flags.env,
      restart: true,
      allowEnv: flags['allow-env'],
      waitSeconds: flags.wait,
      stableSeconds: flags.stable,
      rollback: true,
      note,
    })
    const left = leftToClean(result.findings)
    if (!this.jsonEnabled()) this.note(formatCleanupReport(rotated, left))
    if (rotated.some((rotation) => rotation.result?.outcome === 'rolled-back'))
      process.exitCode = ExitCode.rolledBack
    return { ...result, rotated, leftToClean: left }
  }
}
