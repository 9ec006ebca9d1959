/**
 * Learn mode's record of the traffic, and its verdicts on one request: a request the rules or the
 * host-escape guard would refuse goes on, and is logged "would refuse" with its client, rule set and
 * reason; every request forwarded is recorded as its learned pattern (learned-pattern.ts), and every
 * guard refusal as the allowance that lifts it or, where none does, as needing `--guard off`. What
 * learn mode never lets through: a body or query the guard cannot decode (refusal.undecodable), and
 * whatever the checks before the rules refuse (framing, invalid targets; forward.ts never asks).
 *
 * Memory is bounded: at most `limits.requestKinds` kinds of request (method and learned pattern) per
 * rule set, each pattern at most 1,024 characters (2.4 MB of heap for 1,000 kinds of the longest
 * patterns, measured), and
 * at most `limits.needs` allowances and as many guard reasons. A request learn mode cannot record (a
 * new kind past the cap, a pattern too long, a method a rule line cannot name) is handled as the
 * enforcing proxy would handle it: refused when the rules or the guard refuse it, so that a client
 * cannot fill the record and then do unrecorded what the rules forbid. One the rules allow still goes
 * on, and is counted as not recorded.
 */
import type { GuardKind } from '../guard-endpoints.js'
import { bodyJudge, type GuardSettings, type Refusal } from '../guard.js'
import { isLinuxCapability } from '../guard-settings.js'
import type { ProxyLogger } from '../log.js'
import { allRuleSets, type RuleSet, type RuleSetConfig } from '../rule-sets.js'
import { withoutComment, type Rule } from '../rules.js'
import { UsageError } from '../../errors.js'
import {
  allowanceKey,
  commentText,
  type ClientRun,
  type LearnedSet,
  type LearnedTraffic,
} from './learned-file.js'
import { learnedPattern } from './learned-pattern.js'

/** How much learn mode records (see the module comment). */
export interface LearnLimits {
  requestKinds: number
  needs: number
}

export const defaultLearnLimits: LearnLimits = { requestKinds: 1000, needs: 64 }

/** Learn mode's verdicts on one request, in the order the decision path asks them. */
export interface RequestLearning {
  /** The rules (no refusal given) or the guard refuse the request: true when learn mode lets it go on. */
  overrule(refusal?: Refusal): boolean
  /** The guard's judgement of a body under learn mode: the refusal that stands, or null. */
  judge(kind: GuardKind, request: { query: string; contentType?: string; body: Buffer }): Refusal | null
  /** The request is being forwarded: record it (and log "would refuse" when it would have been refused). */
  forwarded(): void
}

export interface Learner {
  begin(request: {
    ruleSet: RuleSet
    client: string
    method: string
    path: string
    rule?: Rule
  }): RequestLearning
  /** What was recorded so far (a live view: render it, do not keep it). */
  traffic(): LearnedTraffic
}

type Need = { kind: 'allowance'; key: string; refusal: Refusal } | { kind: 'guard-off'; key: string }

/**
 * A bind directory that the file's `flags:` and `environment:` lines can carry, for an operator to paste
 * into a shell or an environment file: absolute, made only of letters, digits and `. _ - / @ + = :`
 * (a POSIX shell reads these literally, so a source like `/tmp/$(id)` or `/a;reboot` is never offered as
 * a setting), and no longer than a path can be (PATH_MAX, 4,096; counted in characters): a longer
 * source names nothing the engine could bind, and kept as an allowance it would cost its length in the
 * record and three times over in every checkpoint of the file (64 of 1 MB: 64 MB held, 192 MB written).
 */
const writableDirectory = /^\/[\p{L}\p{N}._@+=:/-]{0,4095}$/u
const ruleMethod = /^[A-Z]+$/

/** The need a guard refusal stands for: the allowance that lifts it, or `--guard off` with its reason. */
function needOf(refusal: Refusal): Need {
  const allowance = refusal.allowance
  const writable =
    allowance !== undefined &&
    (allowance.kind === 'image-load' ||
      (allowance.kind === 'cap' && isLinuxCapability(allowance.name)) ||
      (allowance.kind === 'bind-from' && writableDirectory.test(allowance.path)))
  if (writable) return { kind: 'allowance', key: allowanceKey(allowance), refusal }
  return { kind: 'guard-off', key: commentText(refusal.reason) }
}

function widen(options: GuardSettings, refusal: Refusal): GuardSettings {
  const allowance = refusal.allowance!
  if (allowance.kind === 'cap')
    return { ...options, allowCaps: new Set([...options.allowCaps, allowance.name]) }
  if (allowance.kind === 'bind-from') return { ...options, bindFrom: [...options.bindFrom, allowance.path] }
  return { ...options, allowImageLoad: true }
}

/**
 * The `client KIND VALUE` lines in the order they were given, consecutive lines for one rule set as one
 * run: the first selector that matches chooses, so the file must keep this order across rule sets.
 */
function clientRuns(config: RuleSetConfig): ClientRun[] {
  const runs: ClientRun[] = []
  for (const selector of config.selectors) {
    const line = `client ${selector.matcher.kind} ${selector.matcher.value}`
    // read back, a rules file ends the line at a "#" after a blank: `cert CN=x #y,O=acme` would become
    // `cert CN=x`, a selector that no longer asks for O=acme
    if (withoutComment(line) !== line)
      throw new UsageError(
        `${selector.source} line ${selector.line}: learn mode cannot write "${line}" into a rules file (a "#" after a blank starts a comment there)`,
      )
    const last = runs.at(-1)
    if (last?.ruleSet === selector.ruleSet) last.clients.push(line)
    else runs.push({ ruleSet: selector.ruleSet, clients: [line] })
  }
  return runs
}

/** A learner for the rule sets of `config`; "would refuse" and "learn mode refuses" lines go to `logger`. */
export function createLearner(
  config: RuleSetConfig,
  options: { logger: ProxyLogger; guard: GuardSettings; limits?: LearnLimits; now?: () => Date },
): Learner {
  const { logger, guard } = options
  const limits = options.limits ?? defaultLearnLimits
  const clientOrder = clientRuns(config)
  const sets = new Map<string, LearnedSet>(
    allRuleSets(config).map((set) => [
      set.name,
      { name: set.name, redactEnv: set.redactEnv, requests: new Map() },
    ]),
  )
  const traffic: LearnedTraffic = {
    sets: [...sets.values()],
    clientRuns: clientOrder,
    allowances: new Map(),
    guardOff: new Map(),
    startedAt: (options.now ?? (() => new Date()))(),
    requests: 0,
    wouldRefuse: 0,
    refusedUnlearnable: 0,
    notRecorded: 0,
  }
  const needsFull = (need: Need) => {
    const map = need.kind === 'allowance' ? traffic.allowances : traffic.guardOff
    return !map.has(need.key) && map.size >= limits.needs
  }
  const recordNeed = (need: Need, ruleSet: string) => {
    if (needsFull(need)) return
    const map: Map<string, { requests: number; ruleSets: Set<string> }> =
      need.kind === 'allowance' ? traffic.allowances : traffic.guardOff
    const recorded =
      map.get(need.key) ??
      (need.kind === 'allowance'
        ? { allowance: need.refusal.allowance!, requests: 0, ruleSets: new Set<string>() }
        : { requests: 0, ruleSets: new Set<string>() })
    recorded.requests++
    recorded.ruleSets.add(ruleSet)
    map.set(need.key, recorded)
  }
  return {
    traffic: () => traffic,
    begin({ ruleSet, client, method, path, rule }) {
      const set = sets.get(ruleSet.name)!
      const builtin = rule?.source === 'built-in'
      const pattern = ruleMethod.test(method) ? learnedPattern(method, path) : undefined
      const key = pattern && `${method} ${pattern.pattern}`
      const why =
        key === undefined
          ? 'a rule line cannot name it (its method, or a pattern over 1,024 characters)'
          : !set.requests.has(key) && set.requests.size >= limits.requestKinds
            ? `learn mode is full (${limits.requestKinds} kinds of request in rule set ${ruleSet.name})`
            : undefined
      const reasons: string[] = []
      const needs: Need[] = []
      const refuse = (reason: string) => {
        traffic.refusedUnlearnable++
        logger.log('warning', 'learn mode refuses', {
          method,
          path: path.slice(0, 512),
          client,
          ruleSet: ruleSet.name,
          reason,
        })
        return false
      }
      const learning: RequestLearning = {
        overrule(refusal) {
          if (refusal?.undecodable) return false
          if (why !== undefined) return refuse(`the enforcing proxy refuses it, and ${why}`)
          if (refusal === undefined) {
            reasons.push('no rule allows it')
            return true
          }
          const need = needOf(refusal)
          if (need.kind === 'guard-off') {
            // privileged, host namespaces, the engine socket...: no allowance lifts it, and what it
            // creates outlives learning (a container keeps its socket), so it stays refused; the file
            // lists it under what the guard refuses whatever the allowances
            recordNeed(need, ruleSet.name)
            return refuse(`only --guard off lifts it: host-escape guard: ${refusal.reason}`)
          }
          if (needsFull(need))
            return refuse(
              `the enforcing proxy refuses it, and learn mode is full (${limits.needs} guard needs)`,
            )
          needs.push(need)
          reasons.push(`host-escape guard: ${refusal.reason}`)
          return true
        },
        judge(kind, request) {
          let settings = guard
          const judgeWith = bodyJudge(kind, request)
          for (let round = 0; round < limits.needs; round++) {
            const refusal = judgeWith(settings)
            if (refusal === null) return null
            if (!learning.overrule(refusal)) return refusal
            settings = widen(settings, refusal)
          }
          return { field: 'body', reason: `the body needs more than ${limits.needs} guard allowances` }
        },
        forwarded() {
          if (key === undefined || why !== undefined || builtin) {
            if (!builtin) traffic.notRecorded++
            return
          }
          const wouldRefuse = reasons.length > 0 ? 1 : 0
          const entry = set.requests.get(key) ?? { method, pattern: pattern!, requests: 0, wouldRefuse: 0 }
          entry.requests++
          entry.wouldRefuse += wouldRefuse
          set.requests.set(key, entry)
          traffic.requests++
          traffic.wouldRefuse += wouldRefuse
          for (const need of needs) recordNeed(need, ruleSet.name)
          if (wouldRefuse)
            logger.log('warning', 'would refuse', {
              method,
              path: path.slice(0, 512),
              client,
              ruleSet: ruleSet.name,
              // a guard reason quotes the body (a bind source of up to 1 MB): the log gets its start
              reason: reasons.join('; ').slice(0, 1024),
            })
        },
      }
      return learning
    },
  }
}
