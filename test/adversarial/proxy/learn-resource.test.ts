/**
 * Resource attacks on learn mode: a client sending many distinct kinds of request (each a new path),
 * the longest patterns, and bind sources of every size. The record stays capped (1,000 kinds per rule
 * set, 64 allowances), the heap it holds stays in the megabytes the docs give, the file stays small,
 * and a kind past the cap that the rules refuse is refused, not forwarded unrecorded.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { resolveRuleSetConfig } from '../../../src/proxy/config.js'
import { defaultGuardSettings } from '../../../src/proxy/guard-settings.js'
import { learnedRulesText } from '../../../src/proxy/learn/learned-file.js'
import { createLearner } from '../../../src/proxy/learn/learner.js'
import { judgeBody } from '../../../src/proxy/guard.js'
import type { ProxyLogger } from '../../../src/proxy/log.js'
import { allRuleSets } from '../../../src/proxy/rule-sets.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const heap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
const quiet: ProxyLogger = { enabled: () => false, log: () => undefined }

describe('learn mode: memory stays bounded', () => {
  it('100,000 distinct kinds of the longest paths hold a few MB, and those past the cap are refused', () => {
    const config = resolveRuleSetConfig({ rules: 'GET /nothing' })
    const set = allRuleSets(config)[0]!
    const learner = createLearner(config, { logger: quiet, guard: defaultGuardSettings })
    const before = heap()
    let refused = 0
    const long = 'x'.repeat(990)
    for (let i = 0; i < 100_000; i++) {
      const learning = learner.begin({ ruleSet: set, client: 'c', method: 'GET', path: `/v1.41/${long}${i}` })
      if (learning.overrule()) learning.forwarded()
      else refused++
    }
    const held = heap() - before
    const text = learnedRulesText(learner.traffic(), new Date(0))
    console.log(
      `learn-resource: ${(held / 1e6).toFixed(1)} MB of heap held for 100,000 kinds; file ${(text.length / 1e6).toFixed(2)} MB; max RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    )
    expect(refused).toBe(99_000)
    expect(learner.traffic().sets[0]!.requests.size).toBe(1000)
    expect(held).toBeLessThan(8e6)
    expect(text.length).toBeLessThan(1.2e6)
  })

  // A 1 MB create body with 63 distinct bind sources: learn mode judges it again with each allowance it
  // learns (63 rounds). Decoding the body in every round held the event loop 1.1-1.4 s per request
  // (enforcing: 20 ms), so a few requests a second froze the proxy for every client.
  it('judging one body with 63 allowances costs about what judging it once does, not 63 decodes', () => {
    const config = resolveRuleSetConfig({ rules: 'POST %API_PREFIX_CONTAINERS%/create' })
    const set = allRuleSets(config)[0]!
    const binds = Array.from({ length: 63 }, (_, i) => `/srv/${i}:/x${i}`)
    const body = Buffer.from(
      JSON.stringify({ Labels: { pad: 'x'.repeat(1_000_000) }, HostConfig: { Binds: binds } }),
    )
    const request = { query: '', contentType: 'application/json', body }
    const timed = (run: () => unknown) => {
      const times: number[] = []
      for (let i = 0; i < 3; i++) {
        const start = performance.now()
        run()
        times.push(performance.now() - start)
      }
      return times.sort((a, b) => a - b)[1]!
    }
    const once = timed(() => judgeBody('container-create', request, defaultGuardSettings))
    const learning = timed(() => {
      const learner = createLearner(config, { logger: quiet, guard: defaultGuardSettings })
      const judged = learner.begin({
        ruleSet: set,
        client: 'c',
        method: 'POST',
        path: '/v1.41/containers/create',
      })
      expect(judged.judge('container-create', request)).toBeNull()
    })
    console.log(
      `learn-resource: one judge ${once.toFixed(1)} ms, learn mode's 63 rounds ${learning.toFixed(1)} ms`,
    )
    expect(learning).toBeLessThan(5 * once + 50)
  })
})
