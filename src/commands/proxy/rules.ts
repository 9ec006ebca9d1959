import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../../base-command.js'
import { parseRules } from '../../proxy/rules.js'
import { builtinRulesText, exposureWarnings, presetNames, presets } from '../../proxy/presets.js'

export interface ProxyRulesResult {
  preset: string
  rules: string
  warnings: string[]
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
    const warnings = exposureWarnings(parseRules(rules, preset))
    if (!this.jsonEnabled()) {
      this.out(rules)
      for (const warning of warnings) this.note(`warning: ${warning}`)
    }
    return { preset, rules, warnings }
  }
}
