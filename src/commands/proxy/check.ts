import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../cli/base-command.js'
import { settingFlags } from '../../cli/setting-flags.js'
import { ExitCode } from '../../errors.js'
import { fields } from '../../text/terminal-text.js'
import { checkRequest, type ProxyCheckResult } from '../../proxy/check.js'
import type { ProxySettings } from '../../proxy/config.js'
import { proxySettingSpecs, settingsFromEnv } from '../../proxy/settings.js'

/** The settings that choose and make the rule sets. */
const ruleSettingKeys = new Set<keyof ProxySettings>([
  'clients',
  'frontendAddrs',
  'noBuiltinRules',
  'preset',
  'redactEnv',
  'rules',
  'rulesFile',
])
/** Flags for them (PROXY_FRONTEND_ADDR is read from the environment only: --client frontend=... says it). */
const ruleSettingSpecs = proxySettingSpecs.filter(
  (spec) => ruleSettingKeys.has(spec.key) && spec.key !== 'frontendAddrs',
)

export default class ProxyCheck extends BaseCommand<typeof ProxyCheck> {
  static override summary = 'show whether the proxy would allow a request, and which rule decides'
  static override description =
    'Decides exactly as `vault proxy serve` does: the path is percent-decoded once and cleaned, the query ' +
    'is ignored, built-in rules come first, and the first matching rule wins. With rule sets chosen per ' +
    'client, --client says who asks. Exit 0 allow, 10 deny.'
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
    {
      command:
        "<%= config.bin %> <%= command.id %> --clients 'source 127.0.0.2 monitoring' --client source=127.0.0.2 GET /v1.47/events",
      description: 'what the dashboard at 127.0.0.2 may do',
    },
  ]
  static override args = {
    method: Args.string({ required: true, description: 'HTTP method (upper case)' }),
    path: Args.string({ required: true, description: 'request path, as a client would send it' }),
  }
  static override enableJsonFlag = true
  static override flags = {
    ...settingFlags(ruleSettingSpecs),
    client: Flags.string({
      multiple: true,
      multipleNonGreedy: true,
      summary: 'who asks: source=ADDRESS, cert=CN=NAME[,O=ORG], frontend=ADDRESS (repeatable)',
    }),
  }

  async run(): Promise<ProxyCheckResult> {
    const { flags, args } = this
    const settings = settingsFromEnv(process.env)
    for (const key of Object.keys(settings) as (keyof ProxySettings)[])
      if (!ruleSettingKeys.has(key)) delete settings[key]
    for (const spec of ruleSettingSpecs) {
      const value = (flags as Record<string, unknown>)[spec.flag]
      if (value === undefined || value === false) continue
      ;(settings as Record<string, unknown>)[spec.key] = Array.isArray(value)
        ? value.flatMap((item: string) => item.split(/[\s,]+/).filter(Boolean))
        : value
    }
    const result = checkRequest(settings, args.method, args.path, flags.client ?? [])
    if (!this.jsonEnabled()) {
      this.out(fields`${result.decision} ${result.method} ${result.canonicalPath ?? result.path}`)
      if (result.ruleSet !== undefined && result.ruleSet !== '*')
        this.note(fields`rule set: ${result.ruleSet}`)
      this.note(result.rule ? fields`rule: ${result.rule}` : fields`reason: ${result.reason}`)
      if (result.envMasked) this.note('container environment values in the answer are masked')
    }
    if (result.decision === 'deny') process.exitCode = ExitCode.findings
    return result
  }
}
