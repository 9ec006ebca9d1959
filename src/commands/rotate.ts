import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../base-command.js'
import { profileFlag } from '../compose/profile-flag.js'
import { connect } from '../client/connect.js'
import { UsageError } from '../errors.js'
import { dueSecrets, type DueResult } from '../rotate/due.js'
import { rotateSecret, type RotateResult } from '../rotate/rotate-secret.js'
import { formatDueReport, formatRotateReport } from '../ui/rotate-report.js'
import { readSecretValue } from '../ui/read-secret.js'

export default class Rotate extends BaseCommand<typeof Rotate> {
  static override summary = 'rotate a secret and recreate exactly the services that use it'
  static override description =
    'Writes a new value of the right shape (32-byte hex for *_SECRET / *_KEY, a password otherwise) with ' +
    'PATCH and If-Match on the version read, then recreates the compose services that reference it ' +
    '(up -d --no-deps) and checks they came back. --hook runs first with the new value on stdin; when it ' +
    'fails nothing changes. --due lists secrets older than the recommended ages and exits 1 when one is due.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev',
      description: 'rotate and recreate',
    },
    {
      command: `<%= config.bin %> <%= command.id %> DATABASE_PASSWORD --hook 'psql -c "ALTER USER app PASSWORD :'"'"'pw'"'"'" -v pw="$(cat)"'`,
      description: 'change it inside the database first',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --due --env prod --max-age "*_PASSWORD=30"',
      description: 'CI check',
    },
  ]
  static override enableJsonFlag = true
  static override args = { name: Args.string({ description: 'secret name (UPPER_SNAKE_CASE)' }) }
  static override flags = {
    ...connectionFlags,
    due: Flags.boolean({ summary: 'list secrets older than their recommended age; exit 1 when one is due' }),
    env: envFlag,
    file: Flags.string({
      char: 'f',
      summary: 'compose file (repeatable; default: discovery in --stack-dir)',
      multiple: true,
    }),
    profile: profileFlag,
    hook: Flags.string({
      summary: 'shell command run first with the new value on stdin; nothing changes if it fails',
    }),
    length: Flags.integer({ char: 'l', summary: 'length of the generated value', min: 16, max: 4096 }),
    'max-age': Flags.string({
      summary: 'rotation rule PATTERN=DAYS for --due, before the defaults (repeatable)',
      multiple: true,
    }),
    'no-restart': Flags.boolean({ summary: 'do not recreate the services that reference the secret' }),
    'value-stdin': Flags.boolean({ summary: 'read the new value from stdin instead of generating one' }),
    wait: Flags.integer({
      summary: 'seconds to wait for recreated services to be running or healthy',
      default: 60,
      min: 0,
    }),
  }

  async run(): Promise<RotateResult | DueResult> {
    const { flags } = this
    const { name } = this.args
    if (!flags.due && !name) {
      throw new UsageError('name the secret to rotate, or pass --due', {
        hint: 'vault rotate DATABASE_PASSWORD --env dev',
      })
    }
    const { api } = await connect(flags, (line) => this.note(line))
    if (flags.due || !name) {
      const result = await dueSecrets(api, flags.env, flags['max-age'] ?? [])
      if (!this.jsonEnabled()) this.out(formatDueReport(result))
      if (result.due > 0) process.exitCode = 1
      return result
    }
    const value = flags['value-stdin']
      ? await readSecretValue({ name, warn: (line) => this.note(line) })
      : undefined
    const result = await rotateSecret(api, {
      name,
      environment: flags.env,
      length: flags.length,
      value,
      hook: flags.hook,
      restart: !flags['no-restart'],
      stackDir: flags['stack-dir'],
      composeFiles: flags.file,
      profiles: flags.profile,
      waitSeconds: flags.wait,
      note: (line) => this.note(line),
    })
    if (!this.jsonEnabled()) this.note(formatRotateReport(result))
    if (!result.healthy) process.exitCode = 1
    return result
  }
}
