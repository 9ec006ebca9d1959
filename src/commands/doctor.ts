import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../base-command.js'
import { profileFlag } from '../compose/profile-flag.js'
import { resolveSettings } from '../client/settings.js'
import { runDoctor, type DoctorResult } from '../doctor/checks.js'
import { formatDoctorReport } from '../ui/doctor-report.js'

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary = 'check the set-up: .env, vault, credentials, environment, compose, proxy'
  static override description =
    "The seed's troubleshooting table as checks, one pass/fail line each with a hint. Exits 1 when a check fails."
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> --env dev', description: 'check the dev set-up' },
    { command: '<%= config.bin %> <%= command.id %> --env dev --json', description: 'as JSON' },
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
    })
    if (!this.jsonEnabled()) this.out(formatDoctorReport(result))
    if (!result.ok) process.exitCode = 1
    return result
  }
}
