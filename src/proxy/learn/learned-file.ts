/**
 * The file learn mode writes (pure): what the traffic seen needed, as a rules file the proxy reads
 * unchanged (`--rules-file FILE`), plus the guard allowances as comment lines giving the exact flags and
 * PROXY_* values. Rules are the smallest set covering the traffic: one line per pattern with the methods
 * seen on it merged (`GET,POST`), and patterns that differ only in their last literal segment, with the
 * same methods, merged into one alternation (`.../(?:json|logs)`). With per-client rule sets, one
 * `[section]` per rule set with its `client` lines, so the file alone chooses the same sets again.
 */
import { presetNames } from '../presets.js'
import type { Allowance } from '../body-guard.js'
import type { LearnedPattern } from './learned-pattern.js'

/** One kind of request seen: a method on a learned pattern, and how often. */
export interface LearnedRequest {
  method: string
  pattern: LearnedPattern
  requests: number
  /** How many of them the rules or the guard would have refused. */
  wouldRefuse: number
}

/** What was learned for one rule set. */
export interface LearnedSet {
  /** The rule set's name (`*` for the set of every client). */
  name: string
  redactEnv: boolean
  /** Keyed by `METHOD pattern`. */
  requests: Map<string, LearnedRequest>
}

/** Consecutive `client KIND VALUE` lines that choose one rule set, in the order the selectors were given. */
export interface ClientRun {
  ruleSet: string
  clients: string[]
}

/** A guard allowance or a reason only `--guard off` lifts, with how often and for which rule sets. */
export interface LearnedNeed {
  requests: number
  ruleSets: Set<string>
}

/** Everything learn mode recorded. */
export interface LearnedTraffic {
  sets: LearnedSet[]
  /**
   * The client selectors as runs (empty without per-client rule sets). A set whose selectors were given
   * between another set's is written once per run, so the file keeps which selector matches first.
   */
  clientRuns: ClientRun[]
  /** Allowances keyed by allowanceKey. */
  allowances: Map<string, LearnedNeed & { allowance: Allowance }>
  /** Guard refusals no allowance lifts, keyed by their reason. */
  guardOff: Map<string, LearnedNeed>
  startedAt: Date
  /** Requests forwarded and recorded. */
  requests: number
  /** Of them, those the rules or the guard would have refused. */
  wouldRefuse: number
  /** Requests refused because learn mode was full or could not write them (see learner.ts). */
  refusedUnlearnable: number
  /** Requests the rules allowed that were forwarded but not recorded (learn mode was full). */
  notRecorded: number
}

export const allowanceKey = (allowance: Allowance) =>
  allowance.kind === 'cap'
    ? `cap ${allowance.name}`
    : allowance.kind === 'bind-from'
      ? `bind-from ${allowance.path}`
      : 'image-load'

const methodOrder = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
const byMethodOrder = (a: string, b: string) => {
  const [x, y] = [methodOrder.indexOf(a), methodOrder.indexOf(b)]
  if (x !== y) return (x === -1 ? 99 : x) - (y === -1 ? 99 : y)
  return a < b ? -1 : a > b ? 1 : 0
}

/** Alternatives in one merged line at most (a longer group is written on several lines). */
const maxAlternatives = 16

/** One rule line to write, with its counts. */
export interface LearnedLine {
  methods: string[]
  pattern: string
  requests: number
  wouldRefuse: number
}

interface PatternGroup extends LearnedLine {
  head: string
  last?: string
}

/** The smallest rule lines covering the requests of one rule set (sorted, so the file is stable). */
export function learnedLines(requests: Iterable<LearnedRequest>): LearnedLine[] {
  const byPattern = new Map<string, PatternGroup>()
  for (const request of requests) {
    const { pattern, head, last } = request.pattern
    const group = byPattern.get(pattern) ?? { methods: [], pattern, head, last, requests: 0, wouldRefuse: 0 }
    if (!group.methods.includes(request.method)) group.methods.push(request.method)
    group.requests += request.requests
    group.wouldRefuse += request.wouldRefuse
    byPattern.set(pattern, group)
  }
  const lines: LearnedLine[] = []
  const mergeable = new Map<string, PatternGroup[]>()
  for (const group of byPattern.values()) {
    group.methods.sort(byMethodOrder)
    if (group.last === undefined) lines.push(group)
    else {
      const key = `${group.methods.join(',')} ${group.head}`
      mergeable.set(key, [...(mergeable.get(key) ?? []), group])
    }
  }
  for (const groups of mergeable.values()) {
    groups.sort((a, b) => (a.last! < b.last! ? -1 : 1))
    for (let i = 0; i < groups.length; i += maxAlternatives) {
      const chunk = groups.slice(i, i + maxAlternatives)
      const first = chunk[0]!
      lines.push({
        methods: first.methods,
        pattern:
          chunk.length === 1
            ? first.pattern
            : `${first.head}/(?:${chunk.map((group) => group.last).join('|')})`,
        requests: chunk.reduce((sum, group) => sum + group.requests, 0),
        wouldRefuse: chunk.reduce((sum, group) => sum + group.wouldRefuse, 0),
      })
    }
  }
  return lines.sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0))
}

/** Text fit for a comment line: no line breaks or other control characters, at most 200 characters. */
export function commentText(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?')
  return clean.length > 200 ? `${clean.slice(0, 200)}...` : clean
}

/** The section a rule set is written as: a set named after a preset gets `-learned` (a section may not take a preset's name). */
export function sectionName(name: string): string {
  return (presetNames as string[]).includes(name) ? `${name}-learned` : name
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`
const countsText = (line: { requests: number; wouldRefuse: number }) =>
  `${plural(line.requests, 'request')}${line.wouldRefuse ? `, ${line.wouldRefuse} would have been refused` : ''}`
const setsText = (need: LearnedNeed) => [...need.ruleSets].sort().join(', ')

/** The flags and PROXY_* values of the allowances learned. */
export function allowanceSettings(allowances: Iterable<Allowance>): { flags: string[]; env: string[] } {
  const list = [...allowances]
  const caps = list.flatMap((allowance) => (allowance.kind === 'cap' ? [allowance.name] : [])).sort()
  const dirs = list.flatMap((allowance) => (allowance.kind === 'bind-from' ? [allowance.path] : [])).sort()
  const imageLoad = list.some((allowance) => allowance.kind === 'image-load')
  const flags = [
    ...caps.map((cap) => `--allow-cap ${cap}`),
    ...dirs.map((dir) => `--allow-bind-from ${dir}`),
    ...(imageLoad ? ['--allow-image-load'] : []),
  ]
  const env = [
    ...(caps.length ? [`PROXY_ALLOW_CAP=${caps.join(',')}`] : []),
    ...(dirs.length ? [`PROXY_ALLOW_BIND_FROM=${dirs.join(',')}`] : []),
    ...(imageLoad ? ['PROXY_ALLOW_IMAGE_LOAD=1'] : []),
  ]
  return { flags, env }
}

function headerLines(traffic: LearnedTraffic, writtenAt: Date): string[] {
  const lines = [
    `# Learned by vault proxy serve --learn, ${traffic.startedAt.toISOString()} to ${writtenAt.toISOString()}:`,
    `# ${plural(traffic.requests, 'request')} recorded, ${traffic.wouldRefuse} of them would have been refused.`,
    '# Each rule is the smallest that covers the requests seen (ids and names generalised as the presets',
    '# write them); the built-in rules (ping, version, info) are not repeated. Serve with:',
    '#   vault proxy serve --rules-file THIS_FILE plus the allowances below',
  ]
  if (traffic.refusedUnlearnable || traffic.notRecorded)
    lines.push(
      `# NOT COVERED: ${traffic.notRecorded} requests forwarded but not recorded, ${traffic.refusedUnlearnable} refused, because learn mode was full or could not write them as rules (see the log).`,
    )
  lines.push('#')
  const settings = allowanceSettings([...traffic.allowances.values()].map((need) => need.allowance))
  if (settings.flags.length === 0) lines.push('# Guard allowances the traffic needed: none.')
  else {
    lines.push('# Guard allowances the traffic needed (give them with these rules):')
    lines.push(`#   flags: ${settings.flags.join(' ')}`)
    lines.push(`#   environment: ${settings.env.join(' ')}`)
    for (const [key, need] of [...traffic.allowances].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const flag = allowanceSettings([need.allowance]).flags[0] ?? key
      lines.push(`#   ${commentText(flag)}: ${plural(need.requests, 'request')} (rule set ${setsText(need)})`)
    }
  }
  if (traffic.guardOff.size > 0) {
    lines.push(
      '# REFUSED BY THE GUARD WHATEVER THE ALLOWANCES (only --guard off, PROXY_GUARD=off, allows these;',
    )
    lines.push('# with the guard on they will still be refused):')
    for (const [reason, need] of [...traffic.guardOff].sort(([a], [b]) => (a < b ? -1 : 1)))
      lines.push(
        `#   ${commentText(reason)}: ${plural(need.requests, 'request')} (rule set ${setsText(need)})`,
      )
  }
  return lines
}

/** The rule lines of one set, each after a comment with its counts; `section` with its client lines when named. */
function setLines(
  set: LearnedSet,
  section?: { name: string; clients: string[]; repeats?: string },
): string[] {
  const lines = ['']
  if (section?.repeats)
    lines.push(
      `# the rules of [${section.repeats}] again: these clients were chosen after the sets above, and the first client line that matches chooses`,
    )
  if (section) lines.push(`[${section.name}]`, ...section.clients)
  lines.push(`redact-env ${set.redactEnv ? 'on' : 'off'}`)
  const rules = learnedLines(set.requests.values())
  for (const rule of rules) lines.push(`# ${countsText(rule)}`, `${rule.methods.join(',')} ${rule.pattern}`)
  if (rules.length === 0 && !section)
    // without a rule, the rules outside sections would fall back to the default rule list
    lines.push(
      '# nothing seen beyond the built-in rules; this line keeps the default rule list out',
      'GET %API_PREFIX_PING%',
    )
  return lines
}

/** The sections of per-client rule sets: one per run of client lines, in the order they were given. */
function sectionsLines(traffic: LearnedTraffic): string[] {
  const byName = new Map(traffic.sets.map((set) => [set.name, set]))
  const taken = new Set([...presetNames, ...traffic.sets.map((set) => sectionName(set.name))])
  const written = new Set<string>()
  const lines: string[] = []
  for (const run of traffic.clientRuns) {
    const set = byName.get(run.ruleSet)
    if (!set) continue
    const first = sectionName(set.name)
    if (!written.has(set.name)) {
      written.add(set.name)
      lines.push(...setLines(set, { name: first, clients: run.clients }))
      continue
    }
    let index = 2
    while (taken.has(`${first}-${index}`)) index++
    const name = `${first}-${index}`
    taken.add(name)
    lines.push(...setLines(set, { name, clients: run.clients, repeats: first }))
  }
  return lines
}

/** The whole file. */
export function learnedRulesText(traffic: LearnedTraffic, writtenAt: Date): string {
  const named = !(traffic.sets.length === 1 && traffic.sets[0]!.name === '*')
  const lines = headerLines(traffic, writtenAt)
  if (named) lines.push(...sectionsLines(traffic))
  else lines.push(...setLines(traffic.sets[0]!))
  return `${lines.join('\n')}\n`
}

/** One line per rule learned, for the log: `[dashboard] GET,HEAD %API_PREFIX_CONTAINERS%/json: 3 requests`. */
export function learnedSummary(traffic: LearnedTraffic): string[] {
  return traffic.sets.flatMap((set) =>
    learnedLines(set.requests.values()).map(
      (rule) => `[${set.name}] ${rule.methods.join(',')} ${rule.pattern}: ${countsText(rule)}`,
    ),
  )
}
