import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../cli/base-command.js'
import { profileFlag } from '../compose/profile-flag.js'
import { connect } from '../client/connect.js'
import type { VaultApi } from '../client/vault-api.js'
import { ExitCode, UsageError } from '../errors.js'
import { dueSecrets, type DueResult } from '../rotate/due.js'
import { isDatabasePassword } from '../rotate/policy.js'
import type { RotatorChoice } from '../rotate/rotators/index.js'
import type { OtherStack } from '../rotate/other-stacks.js'
import type { RotateResult } from '../rotate/rotate-secret.js'
import { formatDueReport, formatOtherStackWarning, formatRotateReport } from '../rotate/report.js'
import { readSecretValue } from '../cli/read-secret.js'
import { rotatorChoice, rotatorFlags } from '../cli/rotator-flags.js'
import { allowEnvFlag } from '../cli/allow-env-flag.js'

export default class Rotate extends BaseCommand<typeof Rotate> {
  static override summary = 'rotate a secret and recreate exactly the services that use it'
  static override description =
    'Writes a new value of the right shape (32-byte hex for *_SECRET / *_KEY / *_TOKEN / *_SALT, a password ' +
    'otherwise) with PATCH and If-Match on the version read, then recreates the compose services that use it ' +
    '(up -d --no-deps) and waits until they are ready: healthy when they have a health check, else running ' +
    'without a restart for --stable seconds. When they are not, the rotation is rolled back (the previous value ' +
    'restored in the vault as a new version, the services recreated again, the database password put back) and ' +
    'the command exits 11; --no-rollback keeps the new value. --rotator postgres|mysql changes the password ' +
    'inside the database first (ALTER ROLE / SET PASSWORD with the current one, then a fresh login with the new ' +
    'one), through --rotator-url or the database client inside --rotator-service. --hook runs a command of ' +
    'your own first with the new value on stdin; when it or the rotator fails nothing changes (a failing hook ' +
    'exits 10). A secret whose name controls the host (DOCKER_HOST, COMPOSE_*, ...) is refused as by vault run ' +
    '(exit 4) unless --allow-env names it. When another secret holds a copy of the value (DATABASE_URL with the ' +
    'password written in, not a template) nothing changes (exit 6) unless --force. --due lists ' +
    'secrets older than the recommended ages and exits 10 when one is due.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> DATABASE_PASSWORD --env dev',
      description: 'rotate and recreate',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> DB_PASSWORD --env prod --rotator postgres --rotator-service database --rotator-user app',
      description: 'change it inside PostgreSQL first, with psql in the database service',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> MYSQL_PASSWORD --env prod --rotator mysql --rotator-url mysql://wordpress@127.0.0.1:3306/wordpress',
      description: 'change it inside MySQL/MariaDB first, from this machine',
    },
    {
      command: '<%= config.bin %> <%= command.id %> APP_SECRET --env prod --allow-env DOCKER_HOST',
      description: 'rotate in a stack whose engine address (DOCKER_HOST) is itself a vault secret',
    },
    {
      command: '<%= config.bin %> <%= command.id %> API_TOKEN --env prod --hook ./push-token.sh',
      description:
        'hand the new value to a script first (on stdin); a failing hook changes nothing (exit 10)',
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
    'allow-env': allowEnvFlag(),
    due: Flags.boolean({ summary: 'list secrets older than their recommended age; exit 10 when one is due' }),
    env: envFlag,
    file: Flags.string({
      char: 'f',
      summary: 'compose file (repeatable; default: discovery in --stack-dir)',
      multiple: true,
    }),
    profile: profileFlag,
    force: Flags.boolean({
      summary: 'rotate even when other secrets hold a copy of the value (they keep the old one)',
    }),
    hook: Flags.string({
      summary: 'shell command run first with the new value on stdin; nothing changes if it fails',
    }),
    length: Flags.integer({ char: 'l', summary: 'length of the generated value', min: 16, max: 4096 }),
    'max-age': Flags.string({
      summary: 'rotation rule PATTERN=DAYS for --due, before the defaults (repeatable)',
      multiple: true,
    }),
    'no-restart': Flags.boolean({ summary: 'do not recreate the services that use the secret' }),
    rollback: Flags.boolean({
      summary: 'roll back when the services do not become ready (--no-rollback keeps the new value)',
      allowNo: true,
      default: true,
    }),
    ...rotatorFlags('change the password inside the database first (PostgreSQL, MySQL/MariaDB)'),
    stable: Flags.integer({
      summary: 'seconds a service without a health check must run without a restart to count as ready',
      default: 10,
      min: 0,
    }),
    'value-stdin': Flags.boolean({ summary: 'read the new value from stdin instead of generating one' }),
    wait: Flags.integer({
      summary: 'seconds to wait for recreated services to be ready',
      default: 60,
      min: 0,
    }),
  }

  async run(): Promise<(RotateResult & { otherStacks: OtherStack[] }) | DueResult> {
    const { flags } = this
    const { name } = this.args
    if (!flags.due && !name) {
      throw new UsageError('name the secret to rotate, or pass --due', {
        hint: 'vault rotate DATABASE_PASSWORD --env dev',
      })
    }
    const { api, settings } = await connect(flags, (line) => this.note(line))
    if (flags.due || !name) {
      const result = await dueSecrets(api, flags.env, flags['max-age'] ?? [])
      if (!this.jsonEnabled()) this.out(formatDueReport(result))
      if (result.due > 0) process.exitCode = ExitCode.findings
      return result
    }
    if (isDatabasePassword(name) && !flags.hook && !flags.rotator)
      this.note(
        `Warning: ${name} looks like a database password: the database keeps the old one unless it changes too; pass --rotator postgres|mysql (or --hook)`,
      )
    const value = flags['value-stdin']
      ? await readSecretValue({ name, warn: (line) => this.note(line) })
      : undefined
    const { rotateSecret } = await import('../rotate/rotate-secret.js')
    const choice = rotatorChoice(flags)
    const rotator = choice ? await this.rotator(choice, api) : undefined
    const result = await rotateSecret(api, {
      name,
      environment: flags.env,
      length: flags.length,
      value,
      hook: flags.hook,
      rotator,
      restart: !flags['no-restart'],
      stackDir: flags['stack-dir'],
      composeFiles: flags.file,
      profiles: flags.profile,
      allowEnv: flags['allow-env'],
      waitSeconds: flags.wait,
      stableSeconds: flags.stable,
      rollback: flags.rollback,
      force: flags.force,
      note: (line) => this.note(line),
    })
    const { stackScope, stacksSharing } = await import('../rotate/other-stacks.js')
    const others = await stacksSharing(name, flags['stack-dir'], stackScope(settings, flags.env))
    if (!this.jsonEnabled()) this.note(formatRotateReport(result))
    for (const other of result.vaultHolds === 'new' ? others : [])
      this.note(formatOtherStackWarning(other, name, flags.env))
    if (result.outcome === 'rolled-back') process.exitCode = ExitCode.rolledBack
    else if (result.outcome === 'unhealthy') process.exitCode = ExitCode.findings
    return { ...result, otherStacks: others }
  }

  private async rotator(choice: RotatorChoice, api: VaultApi) {
    const { flags } = this
    const { stackRotator } = await import('../rotate/rotators/stack-rotator.js')
    return stackRotator(choice, api, {
      environment: flags.env,
      stackDir: flags['stack-dir'],
      composeFiles: flags.file,
      allowEnv: flags['allow-env'],
    })
  }
}
