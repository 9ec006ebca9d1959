import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../cli/base-command.js'
import { profileFlag } from '../compose/profile-flag.js'
import { ExitCode } from '../errors.js'
import { resolveSettings } from '../client/settings.js'
import { runDoctor, type DoctorResult } from '../doctor/checks.js'
import { formatDoctorReport } from '../doctor/report.js'

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary = 'check the set-up: credentials file, vault, environment, compose, proxy'
  static override description =
    "The seed's troubleshooting table as checks, one pass/fail line each with a hint. Exits 10 when a check " +
    'fails. Without --env the environment checks are skipped unless the identity reaches only one. --fix ' +
    "moves VAULT_ settings out of the stack's .env (which compose reads) into .vault/credentials, keeping a " +
    'mode-600 copy of the old .env.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> --env dev', description: 'check the dev set-up' },
    { command: '<%= config.bin %> <%= command.id %> --env dev --json', description: 'as JSON' },
    {
      command: '<%= config.bin %> <%= command.id %> --fix',
      description: 'move the credentials out of .env into .vault/credentials',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...connectionFlags,
    env: envFlag,
    file: Flags.string({
      char: 'f',
      summary: 'compose file (repeatable; default: discovery in --stack-dir)',
      multiple: true,
    }),
    fix: Flags.boolean({ summary: 'move VAULT_ settings from .env to .vault/credentials before checking' }),
    profile: profileFlag,
    proxy: Flags.string({ env: 'ENGINE_HOST', summary: 'socket proxy address to check (tcp://host:2375)' }),
  }

  async run(): Promise<DoctorResult> {
    const { settings } = await resolveSettings(this.flags)
    const result = await runDoctor({
      settings,
      stackDir: this.flags['stack-dir'],
      environment: this.flags.env,
      composeFiles: this.flags.file,
      profiles: this.flags.profile,
      proxy: this.flags.proxy,
      fix: this.flags.fix,
    })
    if (!this.jsonEnabled()) this.out(formatDoctorReport(result))
    if (!result.ok) process.exitCode = ExitCode.findings
    return result
  }
}
