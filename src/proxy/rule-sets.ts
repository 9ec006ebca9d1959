/**
 * Rule sets (pure): rule text with vault's additions to CetusGuard's syntax, resolved into named sets,
 * each with its rules and whether answers carrying container environment are masked, plus the client selectors that
 * choose among them. The additions are lines CetusGuard refuses, so a CetusGuard rule file means the same:
 *
 *   [dashboard]                      a named rule set starts here
 *   client source 10.0.0.0/8         clients that get it (source, cert, frontend)
 *   preset monitoring                a preset's rules at this point
 *   redact-env on                    mask container environment in answers (on/off)
 *   GET %API_PREFIX_EVENTS%          rules, as in CetusGuard
 */
import { ClientMatcherError, parseClientMatcher, type ClientSelector } from './client-rules.js'
import { builtinRulesText, envRedactingPresets, presetNames, presets, type PresetName } from './presets.js'
import {
  isCommentLine,
  parseRuleLine,
  parseRules,
  ruleTextLines,
  RuleSyntaxError,
  withoutComment,
  type Rule,
} from './rules.js'

/** A named rule set as the proxy uses it. */
export interface RuleSet {
  name: string
  rules: Rule[]
  /** Whether answers carrying container environment (inspect-redact.ts) are masked. */
  redactEnv: boolean
}

/** The rule sets of a configuration and how clients are sent to them. */
export interface RuleSetConfig {
  /** The rule set for every client when there are no selectors; absent when selectors decide. */
  everyone?: RuleSet
  sets: ReadonlyMap<string, RuleSet>
  selectors: readonly ClientSelector[]
}

/** Rule text and where it comes from (`PROXY_RULES`, `rules file x.rules`). */
export interface RuleText {
  text: string
  source: string
}

/** Everything the rule sets are made of; texts are already read. */
export interface RuleSetInput {
  texts: readonly RuleText[]
  preset?: string
  /** `PROXY_CLIENTS` selectors, after those written in the rule texts. */
  clients?: readonly ClientSelector[]
  /** PROXY_REDACT_ENV: for every set without a `redact-env` line; undefined: on where a masking preset is used. */
  redactEnv?: boolean
  noBuiltinRules?: boolean
}

/** The name of the rule set made of rules outside any `[section]`. */
export const everyoneSetName = '*'

interface Draft {
  /** Where its `[section]` line is (`PROXY_RULES line 3`); undefined for the set of rules outside sections. */
  writtenAt?: string
  rules: Rule[]
  redactEnv?: boolean
  usesMaskingPreset: boolean
  configured: boolean
}

const newDraft = (): Draft => ({ rules: [], usesMaskingPreset: false, configured: false })
const sectionLine = /^[\t ]*\[([a-z0-9][a-z0-9_.-]*)\][\t ]*$/
const directiveLine = /^[\t ]*(client|preset|redact-env)(?:[\t ]+([^\n]*?))?[\t ]*$/

/** The rules of a named preset; throws the error `fail` builds for an unknown name. */
function presetRules(name: string, fail: (reason: string) => Error): Rule[] {
  if (!(presetNames as string[]).includes(name))
    throw fail(`there is no preset "${name}" (choose one of: ${presetNames.join(', ')})`)
  return parseRules(presets[name as PresetName], `preset ${name}`)
}

function applyPreset(draft: Draft, name: string, fail: (reason: string) => Error): void {
  draft.rules.push(...presetRules(name, fail))
  draft.usesMaskingPreset ||= envRedactingPresets.has(name)
  draft.configured = true
}

function readText(
  input: RuleText,
  everyone: Draft,
  sections: Map<string, Draft>,
  selectors: ClientSelector[],
): void {
  let current = everyone
  let currentName: string | undefined
  for (const [index, rawLine] of ruleTextLines(input.text).entries()) {
    const line = index + 1
    const fail = (reason: string) => new RuleSyntaxError(input.source, line, reason)
    if (isCommentLine(rawLine)) continue
    const content = withoutComment(rawLine)
    const section = sectionLine.exec(content)
    if (section) {
      currentName = section[1]!
      if (currentName === everyoneSetName || presetNames.includes(currentName as PresetName))
        throw fail(`[${currentName}] is the name of a preset: name the rule set differently`)
      const earlier = sections.get(currentName)
      if (earlier)
        throw fail(`[${currentName}] is already written at ${earlier.writtenAt}: write each rule set once`)
      current = { ...newDraft(), writtenAt: `${input.source} line ${line}` }
      sections.set(currentName, current)
      continue
    }
    const directive = directiveLine.exec(content)
    if (!directive) {
      current.rules.push(parseRuleLine(rawLine, input.source, line))
      current.configured = true
      continue
    }
    const [, keyword, argument = ''] = directive
    if (keyword === 'preset') applyPreset(current, argument, fail)
    else if (keyword === 'redact-env') {
      if (argument !== 'on' && argument !== 'off') throw fail('redact-env takes "on" or "off"')
      current.redactEnv = argument === 'on'
    } else {
      if (currentName === undefined) throw fail('a "client" line belongs inside a [rule-set] section')
      const [kind = '', ...rest] = argument.split(/[\t ]+/)
      try {
        const matcher = parseClientMatcher(kind, rest.join(' '))
        selectors.push({ matcher, ruleSet: currentName, source: input.source, line })
      } catch (error) {
        if (error instanceof ClientMatcherError) throw fail(error.message)
        throw error
      }
    }
  }
}

function finish(name: string, draft: Draft, builtins: readonly Rule[], redactEnv?: boolean): RuleSet {
  return {
    name,
    rules: [...builtins, ...draft.rules],
    redactEnv: draft.redactEnv ?? redactEnv ?? draft.usesMaskingPreset,
  }
}

/**
 * Resolves the rule sets: built-ins (unless turned off) first in every set; rules outside sections,
 * PROXY_PRESET and PROXY_REDACT_ENV make the set for everyone (the default list when nothing is
 * configured). With client selectors, each client gets the set its first matching selector names (a
 * section, or a preset by name) and rules outside sections are refused as ambiguous. Throws
 * RuleSyntaxError (with the line) or Error with the reason.
 */
export function resolveRuleSets(input: RuleSetInput): RuleSetConfig {
  const builtins = input.noBuiltinRules ? [] : parseRules(builtinRulesText, 'built-in')
  const everyone = newDraft()
  const sections = new Map<string, Draft>()
  const selectors: ClientSelector[] = []
  for (const text of input.texts) readText(text, everyone, sections, selectors)
  if (input.preset) applyPreset(everyone, input.preset, (reason) => new Error(`PROXY_PRESET: ${reason}`))
  selectors.push(...(input.clients ?? []))
  const redactEnv = input.redactEnv ?? everyone.redactEnv
  if (selectors.length === 0) {
    if (sections.size > 0) {
      throw new Error(
        `rule set [${[...sections.keys()][0]}] is chosen by no client: add "client source|cert|frontend ..." lines or PROXY_CLIENTS`,
      )
    }
    if (!everyone.configured) everyone.rules.push(...parseRules(presets.default, 'default rules'))
    const set = finish(everyoneSetName, everyone, builtins, redactEnv)
    return { everyone: set, sets: new Map(), selectors }
  }
  if (everyone.configured) {
    throw new Error(
      'rules outside a [rule-set] section (or PROXY_PRESET) cannot be combined with client selectors: move them into a section',
    )
  }
  const sets = new Map<string, RuleSet>()
  for (const [name, draft] of sections) sets.set(name, finish(name, draft, builtins, redactEnv))
  for (const selector of selectors) {
    if (sets.has(selector.ruleSet)) continue
    const draft = newDraft()
    applyPreset(
      draft,
      selector.ruleSet,
      () =>
        new Error(
          `${selector.source} line ${selector.line}: "${selector.ruleSet}" is neither a [rule-set] section nor a preset`,
        ),
    )
    sets.set(selector.ruleSet, finish(selector.ruleSet, draft, builtins, redactEnv))
  }
  for (const name of sections.keys()) {
    if (!selectors.some((selector) => selector.ruleSet === name))
      throw new Error(`rule set [${name}] is chosen by no client`)
  }
  return { sets, selectors }
}

/** Every rule set of a configuration (the one for everyone, or the named ones). */
export function allRuleSets(config: RuleSetConfig): RuleSet[] {
  return config.everyone ? [config.everyone] : [...config.sets.values()]
}

/** `14 rules, env masked` or `dashboard: 12 rules, env masked; updater: 9 rules` for the start-up log. */
export function describeRuleSets(config: RuleSetConfig): string {
  const describe = (set: RuleSet) => `${set.rules.length} rules${set.redactEnv ? ', env masked' : ''}`
  if (config.everyone) return describe(config.everyone)
  return [...config.sets.values()].map((set) => `${set.name}: ${describe(set)}`).join('; ')
}
