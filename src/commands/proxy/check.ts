import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../base-command.js'
import { checkRequest, type ProxyCheckResult } from '../../proxy/check.js'
import { presetNames } from '../../proxy/presets.js'

export default class ProxyCheck extends BaseCommand<typeof ProxyCheck> {
  static override summary = 'show whether the proxy would allow a request, and which rule decides'
  static override description =
    'Decides exactly as `vault proxy serve` does: the path is percent-decoded once and cleaned, the query ' +
    'is ignored, built-in rules come first, and the first matching rule wins. Exit 0 allow, 1 deny.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> GET /v1.41/containers/json',
      description: 'under the default rules',
    },
    {
      command:
        "<%= config.bin %> <%= command.id %> --preset read-only POST '/v1.41/containers/x/%2e%2e/create'",
      description: 'a dot-segment trick, decided on the canonical path',
    },
  ]
  static override args = {
    method: Args.string({ required: true, description: 'HTTP method (upper case)' }),
    path: Args.string({ required: true, description: 'request path, as a client would send it' }),
  }
  static override enableJsonFlag = true
  static override flags = {
    'no-builtin-rules': Flags.boolean({
      env: 'PROXY_NO_BUILTIN_RULES',
      summary: 'leave out the built-in rules',
    }),
    preset: Flags.option({ options: presetNames })({ env: 'PROXY_PRESET', summary: 'a named rule set' }),
    rules: Flags.string({ env: 'PROXY_RULES', summary: 'rules, one "METHODS PATTERN" per line' }),
    'rules-file': Flags.file({ env: 'PROXY_RULES_FILE', summary: 'a file of rules' }),
  }

  async run(): Promise<ProxyCheckResult> {
    const { flags, args } = this
    const result = checkRequest(
      {
        noBuiltinRules: flags['no-builtin-rules'],
        preset: flags.preset,
        rules: flags.rules,
        rulesFile: flags['rules-file'],
      },
      args.method,
      args.path,
    )
    if (!this.jsonEnabled()) {
      this.out(`${result.decision} ${result.method} ${result.canonicalPath ?? result.path}`)
      this.note(result.rule ? `rule: ${result.rule}` : `reason: ${result.reason}`)
    }
    if (result.decision === 'deny') process.exitCode = 1
    return result
  }
}
