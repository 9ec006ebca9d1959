import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../cli/base-command.js'
import { parseRules } from '../../proxy/rules.js'
import {
  builtinRulesText,
  envRedactingPresets,
  exposureWarnings,
  presetNames,
  presets,
} from '../../proxy/presets.js'

export interface ProxyRulesResult {
  preset: string
  rules: string
  warnings: string[]
  /** Whether the preset masks container environment in answers by default. */
  redactEnv: boolean
}

export default class ProxyRules extends BaseCommand<typeof ProxyRules> {
  static override summary = 'print a preset rule set, with warnings about what it exposes'
  static override description =
    `Presets: ${presetNames.join(', ')}. "default" is the seed's default list (NOT read-only). ` +
    'Warnings name container export, archive, attach, create and the environment-bearing inspect where ' +
    'a preset allows them. The built-in rules (ping, version, info) are prepended by the proxy unless turned off.'
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> --preset monitoring',
      description: 'read-only plus exec',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --preset read-only > proxy.rules',
      description: 'start a rule file from a preset',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    builtin: Flags.boolean({ summary: 'print the built-in rules instead', exclusive: ['preset'] }),
    preset: Flags.option({ options: presetNames })({ summary: 'the preset to print [default: default]' }),
  }

  async run(): Promise<ProxyRulesResult> {
    const preset = this.flags.builtin ? 'built-in' : (this.flags.preset ?? 'default')
    const rules = this.flags.builtin ? builtinRulesText : presets[this.flags.preset ?? 'default']
    const redactEnv = envRedactingPresets.has(preset)
    const warnings = exposureWarnings(parseRules(rules, preset), redactEnv)
    if (!this.jsonEnabled()) {
      this.out(rules)
      for (const warning of warnings) this.note(`warning: ${warning}`)
      if (redactEnv)
        this.note(
          'answers carrying container environment (container and image inspect, services, tasks, plugins): its values are masked (redact-env on)',
        )
    }
    return { preset, rules, warnings, redactEnv }
  }
}
