/**
 * oclif flags built from a settings table (src/proxy/settings.ts), so that a setting's flag, variable,
 * default and help are written once. The flags carry no `env`: the command reads the environment through
 * the same table as the serving process (oclif would hand a list variable over as one string). The
 * variable and the default are shown in the flag's help.
 */
import * as Flags from '@oclif/core/flags'
import type { SettingSpec } from '../proxy/settings.js'

// oclif's flag types differ per kind; the command never reads the parsed values (settings.ts does).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type SettingFlag = any

/** One oclif flag per setting, keyed by flag name. */
export function settingFlags(specs: readonly SettingSpec[]): Record<string, SettingFlag> {
  const flags: Record<string, SettingFlag> = {}
  for (const spec of specs) {
    const summary = `${spec.summary} [env: ${spec.env}]${spec.default === undefined ? '' : ` [default: ${spec.default}]`}`
    if (spec.kind === 'boolean') flags[spec.flag] = Flags.boolean({ summary })
    else if (spec.kind === 'list' || spec.kind === 'paths')
      // Non-greedy: one value per flag (repeat it, or for a list separate by commas), so arguments may follow.
      flags[spec.flag] = Flags.string({ summary, multiple: true, multipleNonGreedy: true })
    else flags[spec.flag] = Flags.string({ summary, ...(spec.options ? { options: [...spec.options] } : {}) })
  }
  return flags
}
