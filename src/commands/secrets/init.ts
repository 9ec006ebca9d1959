import { readFile } from 'node:fs/promises'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { baseSecrets, inputFlagName, type BaseSecretSpec } from '../../stack/base-secrets.js'
import type { InitSecretsResult } from '../../stack/init-secrets.js'
import { UsageError } from '../../errors.js'

const inputSpecs = baseSecrets.filter((spec) => spec.source === 'input' && !spec.sensitive)
const inputFlags = Object.fromEntries(
  inputSpecs.map((spec) => [
    inputFlagName(spec),
    Flags.string({ summary: `${spec.name}: ${spec.summary}`, helpGroup: 'BASE SECRETS' }),
  ]),
)

export default class SecretsInit extends BaseCommand<typeof SecretsInit> {
  static override summary = 'fill an environment with every variable the stack references'
  static override description =
    "Reads the stack's compose files (--stack-dir, -f): every referenced variable whose name marks it as a " +
    'secret (*_PASSWORD, *_PASS: a 32-character password; *_SECRET, *_KEY, *_TOKEN, *_SALT: 32 random bytes, ' +
    'hex) is generated; the others without a default, and not set in the project .env, come from --set ' +
    'NAME=VALUE, from --values-file (an env file; also the way to give a generated one a value of your own), ' +
    "or from prompts on a terminal. The seed's base list (generated keys, validated inputs such as DATA_DIR " +
    'and TZ) is the preset of the example stack: it applies with --preset example, when the directory holds ' +
    'no compose file, and to those names in any stack. Everything is validated before anything is written. ' +
    'Existing values are kept unless --force.'
  static override examples = [
    {
      command:
        '<%= config.bin %> <%= command.id %> --env dev --data-dir /srv/stack --stack-project-name homelab --domainname example.com ' +
        '--gateway-domain gateway.example.com --gateway-trusted-ips 10.0.0.0/8 --puid 1000 --pgid 1000 --tz Europe/Berlin ' +
        '--gateway-api-user admin --objstore-account-id 0012ab --backup-repository b2:bucket:stack --values-file keys.env',
      description: 'non-interactive, for scripts',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --env dev',
      description: 'on a terminal: asks for each missing value',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> --env dev --stack-dir ~/wordpress --set WORDPRESS_DB_USER=wp',
      description: 'any stack: generates MYSQL_PASSWORD and the like, takes the other values as flags',
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
    force: Flags.boolean({ summary: 'overwrite values that already exist' }),
    preset: Flags.option({ options: ['example'] as const })({
      summary: "use the seed's base list (the example stack) instead of reading the stack",
    }),
    set: Flags.string({ summary: 'a value for a variable, NAME=VALUE (repeatable)', multiple: true }),
    'values-file': Flags.file({ summary: 'env file with input values (KEY=value)', exists: true }),
    ...inputFlags,
  }

  async run(): Promise<InitSecretsResult> {
    const inputs = await this.collectInputs()
    const [{ connect }, { initBaseSecrets }] = await Promise.all([
      import('../../client/connect.js'),
      import('../../stack/init-secrets.js'),
    ])
    const specs = await this.stackSpecs(Object.keys(inputs))
    const { api } = await connect(this.flags, (line) => this.note(line))
    const prompt = process.stdin.isTTY && !this.jsonEnabled() ? askFor : undefined
    const result = await initBaseSecrets(api, {
      environment: this.flags.env,
      inputs,
      force: this.flags.force,
      prompt,
      specs,
    })
    if (!this.jsonEnabled()) {
      const where = result.environment ?? 'the default environment'
      this.note(
        `${where}: ${result.created.length} created, ${result.overwritten.length} overwritten, ${result.kept.length} kept`,
      )
      if (result.kept.length > 0 && !this.flags.force)
        this.note(`kept existing values (use --force to overwrite): ${result.kept.join(', ')}`)
      if (result.omitted.length > 0) this.note(`optional, not set: ${result.omitted.join(', ')}`)
    }
    return result
  }

  /** The stack's specs, or undefined for the preset (asked for, or no compose file found). */
  private async stackSpecs(given: string[]): Promise<BaseSecretSpec[] | undefined> {
    if (this.flags.preset === 'example') return undefined
    const { loadStackForUsers } = await import('../../stack/stack-users.js')
    const project = await loadStackForUsers({
      stackDir: this.flags['stack-dir'],
      composeFiles: this.flags.file,
    })
    if (!project) {
      this.note(`no compose file in ${this.flags['stack-dir']}: using the example stack's preset`)
      return undefined
    }
    const [{ specsForStack }, { listVariables }] = await Promise.all([
      import('../../stack/stack-specs.js'),
      import('../../compose/index.js'),
    ])
    const { specs, skipped } = specsForStack(project, listVariables)
    for (const name of given) {
      const preset = baseSecrets.find((spec) => spec.name === name)
      if (preset && !specs.includes(preset)) specs.push(preset)
    }
    if (!this.jsonEnabled() && skipped.length > 0)
      this.note(`not filled: ${skipped.map((entry) => `${entry.name} (${entry.reason})`).join(', ')}`)
    return specs
  }

  private async collectInputs(): Promise<Record<string, string>> {
    const inputs: Record<string, string> = {}
    const valuesFile = this.flags['values-file']
    if (valuesFile) {
      const { parseEnvFile } = await import('../../compose/env-file.js')
      Object.assign(
        inputs,
        parseEnvFile(await readFile(valuesFile, 'utf8'), () => undefined, { file: valuesFile }),
      )
    }
    const flags = this.flags as Record<string, unknown>
    for (const spec of inputSpecs) {
      const value = flags[inputFlagName(spec)]
      if (typeof value === 'string') inputs[spec.name] = value
    }
    for (const assignment of this.flags.set ?? []) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(assignment)
      if (!match)
        throw new UsageError(`--set takes NAME=VALUE, got ${JSON.stringify(assignment.split('=')[0])}`)
      inputs[match[1]!] = match[2]!
    }
    return inputs
  }
}

async function askFor(spec: BaseSecretSpec): Promise<string> {
  const { input, password } = await import('@inquirer/prompts')
  const message = `${spec.name} (${spec.summary})`
  return spec.sensitive
    ? password({ message, mask: true }, { output: process.stderr })
    : input({ message, default: spec.example }, { output: process.stderr })
}
