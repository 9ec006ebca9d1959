import { readFileSync } from 'node:fs'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../cli/base-command.js'
import { settingFlags } from '../../cli/setting-flags.js'
import { ExitCode, UsageError } from '../../errors.js'
import { fields } from '../../text/terminal-text.js'
import { checkRequest, type ProxyCheckResult } from '../../proxy/check.js'
import { loadComposePolicy } from '../../proxy/compose-policy/load.js'
import type { ProxySettings } from '../../proxy/config.js'
import { proxySettingSpecs, settingsFromEnv } from '../../proxy/settings.js'

/** The settings that choose and make the rule sets. */
const ruleSettingKeys = new Set<keyof ProxySettings>([
  'allowBindFrom',
  'allowCap',
  'allowImageLoad',
  'clients',
  'composePolicy',
  'frontendAddrs',
  'guard',
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

function readBody(file: string): Buffer {
  try {
    return readFileSync(file)
  } catch (error) {
    throw new UsageError(
      `--body "${file}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    )
  }
}

export default class ProxyCheck extends BaseCommand<typeof ProxyCheck> {
  static override summary = 'show whether the proxy would allow a request, and which rule decides'
  static override description =
    'Decides exactly as `vault proxy serve` does: the path is percent-decoded once and cleaned, the query ' +
    'is ignored, built-in rules come first, and the first matching rule wins. With rule sets chosen per ' +
    'client, --client says who asks. With --body FILE the host-escape guard reads the body as the proxy ' +
    'would (application/json unless --content-type says otherwise) and names the field it refuses; with ' +
    '--compose-policy FILE the policy decides creates as the proxy would. Exit 0 allow, 10 deny.'
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
      command: '<%= config.bin %> <%= command.id %> POST /v1.41/containers/create --body create.json',
      description: 'whether the guard lets this create through, and which field it refuses',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> --compose-policy compose.yaml POST /v1.41/containers/create --body create.json',
      description: 'whether the compose policy lets this create through: the service and field it refuses',
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
    body: Flags.string({ summary: 'a file holding a request body to check with the host-escape guard' }),
    'content-type': Flags.string({
      summary: 'the Content-Type sent with --body',
      default: 'application/json',
    }),
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
      // a list flag may separate values by commas; a paths flag (--compose-policy) names one file
      ;(settings as Record<string, unknown>)[spec.key] =
        Array.isArray(value) && spec.kind === 'list'
          ? value.flatMap((item: string) => item.split(/[\s,]+/).filter(Boolean))
          : value
    }
    const body =
      flags.body === undefined
        ? undefined
        : { bytes: readBody(flags.body), contentType: flags['content-type'] }
    const composePolicy = settings.composePolicy?.length
      ? loadComposePolicy(settings.composePolicy, process.env)
      : undefined
    const result = checkRequest(settings, args.method, args.path, {
      client: flags.client ?? [],
      body,
      composePolicy,
    })
    if (!this.jsonEnabled()) {
      this.out(fields`${result.decision} ${result.method} ${result.canonicalPath ?? result.path}`)
      if (result.ruleSet !== undefined && result.ruleSet !== '*')
        this.note(fields`rule set: ${result.ruleSet}`)
      if (result.rule) this.note(fields`rule: ${result.rule}`)
      if (result.field) this.note(fields`field: ${result.field}`)
      if (!result.rule || result.decision === 'deny' || result.reason !== undefined)
        this.note(fields`reason: ${result.reason}`)
      if (result.envMasked) this.note('container environment values in the answer are masked')
    }
    if (result.decision === 'deny') process.exitCode = ExitCode.findings
    return result
  }
}
