import { readFile } from 'node:fs/promises'
import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags, envFlag } from '../../base-command.js'
import { baseSecrets, inputFlagName, type BaseSecretSpec } from '../../stack/base-secrets.js'
import type { InitSecretsResult } from '../../stack/init-secrets.js'

const inputSpecs = baseSecrets.filter((spec) => spec.source === 'input' && !spec.sensitive)
const inputFlags = Object.fromEntries(
  inputSpecs.map((spec) => [
    inputFlagName(spec),
    Flags.string({ summary: `${spec.name}: ${spec.summary}`, helpGroup: 'BASE SECRETS' }),
  ]),
)

export default class SecretsInit extends BaseCommand<typeof SecretsInit> {
  static override summary = "fill an environment with the stack's base secrets"
  static override description =
    'Passwords and the 32-byte hex keys (AUTH_JWT_SECRET, AUTH_SESSION_SECRET, AUTH_STORAGE_ENCRYPTION_KEY) are ' +
    'generated; the other values come from flags, from --values-file (an env file; the only way to pass ' +
    'OBJSTORE_ACCOUNT_KEY and MESSENGER_BOT_TOKEN besides the prompt), or from prompts on a terminal. ' +
    'Everything is validated before anything is written. Existing values are kept unless --force.'
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
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...connectionFlags,
    env: envFlag,
    force: Flags.boolean({ summary: 'overwrite values that already exist' }),
    'values-file': Flags.file({ summary: 'env file with input values (KEY=value)', exists: true }),
    ...inputFlags,
  }

  async run(): Promise<InitSecretsResult> {
    const inputs = await this.collectInputs()
    const [{ connect }, { initBaseSecrets }] = await Promise.all([
      import('../../client/connect.js'),
      import('../../stack/init-secrets.js'),
    ])
    const { api } = await connect(this.flags, (line) => this.note(line))
    const prompt = process.stdin.isTTY && !this.jsonEnabled() ? askFor : undefined
    const result = await initBaseSecrets(api, {
      environment: this.flags.env,
      inputs,
      force: this.flags.force,
      prompt,
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
