/**
 * What the RE2 subset (re2-subset.ts: patterns inside it run on V8's own engine) saves per decision
 * against running every rule on re2js: the built-in rules and the read-only preset, compiled both ways,
 * decided for an allowed path (the container list) and a refused one (every rule tried). Runs in a child
 * under the serving process's V8 flags (launch.ts) and prints µs of CPU per decision after a warm-up.
 * Run: npx tsx bench/proxy-rules.ts [iterations]
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { RE2JS } from 're2js'
import { builtinRulesText, presets } from '../src/proxy/presets.js'
import { decide, parseRules, type Rule } from '../src/proxy/rules.js'
import { proxyNodeFlags } from '../src/proxy/launch.js'
import { expandVariables } from '../src/proxy/variables.js'
import { printTable } from './lib/timing.js'

const paths: [string, string, string][] = [
  ['allowed: GET container list', 'GET', '/v1.47/containers/json'],
  ['allowed: GET container inspect', 'GET', '/v1.47/containers/3f2a9c1d0e7b/json'],
  ['refused: GET container export (every GET rule tried)', 'GET', '/v1.47/containers/3f2a9c1d0e7b/export'],
]

/** The same rules with every pattern on re2js (what the proxy would do without the subset). */
function onRe2(rules: Rule[]): Rule[] {
  const { RE2JS: re2 } = createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }
  return rules.map((rule) => {
    const compiled = re2.compile(`^(?:${expandVariables(rule.pattern)})$`)
    return { ...rule, regex: { engine: 're2' as const, test: (path: string) => compiled.test(path) } }
  })
}

function measure(rules: Rule[], method: string, path: string, iterations: number): number {
  for (let i = 0; i < iterations; i++) decide(rules, method, path)
  const start = process.cpuUsage()
  for (let i = 0; i < iterations; i++) decide(rules, method, path)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / iterations
}

const iterations = Number(process.argv[2] ?? 50_000)
if (process.env.PROXY_RULES_BENCH_CHILD) {
  const rules = parseRules(`${builtinRulesText}\n${presets['read-only']}`)
  const slow = onRe2(rules)
  const results = paths.map(([, method, path]) => [
    measure(rules, method, path, iterations),
    measure(slow, method, path, iterations),
  ])
  process.stdout.write(
    JSON.stringify({
      count: rules.length,
      v8: rules.filter((rule) => rule.regex.engine === 'v8').length,
      results,
    }),
  )
} else {
  const child = spawnSync(
    process.execPath,
    [...proxyNodeFlags, '--import', 'tsx', fileURLToPath(import.meta.url), String(iterations)],
    { env: { ...process.env, PROXY_RULES_BENCH_CHILD: '1' }, encoding: 'utf8' },
  )
  if (child.status !== 0) throw new Error(child.stderr)
  const { count, v8, results } = JSON.parse(child.stdout) as {
    count: number
    v8: number
    results: number[][]
  }
  console.log(`${count} rules (built-in and read-only preset), ${v8} of them in the subset (V8's engine)`)
  printTable(
    ['path', 'µs CPU per decision, subset on V8', 'µs, every rule on re2js'],
    paths.map(([name], index) => [name, results[index]![0]!.toFixed(2), results[index]![1]!.toFixed(2)]),
  )
}
