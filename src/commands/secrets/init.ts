import { readFile } from 'node:fs/promises'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../cli/base-command.js'
import { baseSecrets, inputFlagName, type BaseSecretSpec } from '../../stack/base-secrets.js'
import type { InitSecretsResult } from '../../stack/init-secrets.js'
import type { StackSpecs } from '../../stack/stack-specs.js'
import { formatColumns } from '../../text/columns.js'
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
    "Reads the stack's compose files (--stack-dir, -f): a referenced variable whose name marks it as a " +
    'secret (*_PASSWORD, *_PASS, *_AUTH: a 32-character password; *_SECRET, *_KEY, *_TOKEN, *_SALT: 32 random ' +
    'bytes, hex) is generated when it is required (${X:?}, or ${X} with no default) or its default is a ' +
    "published literal such as CHANGEME (the new value keeps that default's shape: 64 hex characters stay 64 " +
    'hex); never when its default is empty (${X:-}), a path, a URL, a boolean or a number. Variables that share ' +
    'a published default become one secret and templates of it (B stored as ${A}); a URL whose password is ' +
    "another variable's default becomes a template of it. --dry-run prints the plan, one line per variable " +
    '(generate, template, input, keep or skip, and why). The others without a default, and not set in the project .env, come from --set ' +
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
      command: '<%= config.bin %> <%= command.id %> --env dev --stack-dir ~/langfuse --dry-run',
      description: 'what would be generated, templated, kept or skipped, and why; nothing is written',
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
    'dry-run': Flags.boolean({
      summary: 'print the plan (generate, template, keep, skip and why); write nothing',
    }),
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
    const { specs, skipped } = await this.stackSpecs(Object.keys(inputs))
    const { api } = await connect(this.flags, (line) => this.note(line))
    const prompt = process.stdin.isTTY && !this.jsonEnabled() ? askFor : undefined
    const result = await initBaseSecrets(api, {
      environment: this.flags.env,
      inputs,
      force: this.flags.force,
      dryRun: this.flags['dry-run'],
      prompt,
      specs,
      skipped,
    })
    if (!this.jsonEnabled()) this.report(result)
    return result
  }

  private report(result: InitSecretsResult): void {
    if (result.dryRun)
      this.out(
        formatColumns(
          result.plan.map((entry) => [entry.name, entry.action, entry.template ?? '', entry.reason]),
          ['NAME', 'PLAN', 'TEMPLATE', 'WHY'],
        ),
      )
    const where = result.environment ?? 'the default environment'
    const named = (action: string) =>
      result.plan.filter((entry) => entry.action === action).map((e) => e.name)
    for (const [action, label] of [
      ['generate', result.dryRun ? 'would generate' : 'generated'],
      ['template', result.dryRun ? 'would store as templates' : 'stored as templates'],
      ['input', result.dryRun ? 'would set from input' : 'set from input'],
      ['keep', 'kept (--force replaces)'],
      ['skip', 'skipped'],
    ] as const) {
      const names = named(action)
      if (names.length > 0) this.note(`${label}: ${names.join(', ')}`)
    }
    this.note(
      result.dryRun
        ? `${where}: dry run, nothing written`
        : `${where}: ${result.created.length} created, ${result.overwritten.length} overwritten, ${result.kept.length} kept`,
    )
  }

  /** The stack's specs and skipped names; no specs for the preset (asked for, or no compose file found). */
  private async stackSpecs(given: string[]): Promise<Partial<StackSpecs>> {
    if (this.flags.preset === 'example') return {}
    const { loadStackForUsers } = await import('../../stack/stack-users.js')
    const project = await loadStackForUsers({
      stackDir: this.flags['stack-dir'],
      composeFiles: this.flags.file,
    })
    if (!project) {
      this.note(`no compose file in ${this.flags['stack-dir']}: using the example stack's preset`)
      return {}
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
    return { specs, skipped }
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
