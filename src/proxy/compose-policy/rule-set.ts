/**
 * The rule set of a proxy serving a compose policy: the built-in rules (unless turned off), then the
 * policy's own (routes.ts), for every client. The policy replaces the rules: other rule settings given
 * with it are refused, since they would decide beside it.
 */
import { UsageError } from '../../errors.js'
import type { ProxySettings } from '../config.js'
import { builtinRulesText } from '../presets.js'
import type { RuleSetConfig } from '../rule-sets.js'
import { parseRules } from '../rules.js'
import { composeRulesText } from './routes.js'

/** The name the policy's rule set is logged under. */
export const composeRuleSetName = 'compose-policy'

const exclusive: [keyof ProxySettings, string][] = [
  ['rules', 'PROXY_RULES'],
  ['rulesFile', 'PROXY_RULES_FILE'],
  ['preset', 'PROXY_PRESET'],
  ['clients', 'PROXY_CLIENTS'],
  // learn mode writes rules; under a compose policy there are none to learn
  ['learn', 'PROXY_LEARN'],
]

export function composeRuleSetConfig(settings: ProxySettings): RuleSetConfig {
  for (const [key, name] of exclusive) {
    if (settings[key] !== undefined)
      throw new UsageError(
        `PROXY_COMPOSE_POLICY and ${name} are given together: the compose policy is the rule set`,
        {
          hint: 'run a second proxy for clients that need other rules',
        },
      )
  }
  if (settings.redactEnv !== undefined && settings.redactEnv !== 'on' && settings.redactEnv !== 'off')
    throw new UsageError(`PROXY_REDACT_ENV "${settings.redactEnv}" is neither on nor off`)
  const rules = [
    ...(settings.noBuiltinRules ? [] : parseRules(builtinRulesText, 'built-in')),
    ...parseRules(composeRulesText, 'compose policy'),
  ]
  return {
    everyone: { name: composeRuleSetName, rules, redactEnv: settings.redactEnv === 'on' },
    sets: new Map(),
    selectors: [],
  }
}
