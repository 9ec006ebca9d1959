/**
 * Compose files that expand through YAML aliases. Both parsers hand an alias the anchored value
 * itself, so a 1 KB file of nested aliases parses at once and only later stages pay for the expansion:
 * before src/compose/alias-expansion.ts, 6 levels of 8 aliases took `vault render` 1.9 s and 340 MB and
 * printed 262,144 copies, one more level all the memory there is, and the full parser's own limit
 * ended in an unclassified error (exit 1).
 *
 * - go-yaml's verdicts (oracle/README.md) on every case of alias-cases.ts, boundaries included: vault
 *   refuses what compose's YAML reader refuses, and accepts what it accepts, except where listed.
 * - The built CLI on bombs for each parser: exit 2 with compose's message, nothing on stdout, in
 *   bounded time and memory.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { parseComposeYaml } from '../../../src/compose/yaml-source.js'
import { runMeasured } from '../../helpers/measured-cli.js'
import { aliasCases } from './alias-cases.js'

const verdicts = new Map(
  readFileSync(fileURLToPath(new URL('./go-yaml-verdicts.jsonl', import.meta.url)), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { name: string; verdict: string })
    .map(({ name, verdict }) => [name, verdict]),
)

/**
 * Where vault accepts what go-yaml refuses: go-yaml counts a `<<` merge as the expansion of the whole
 * merged mapping, vault counts the entries it copies as plain ones. A merge copies each entry once
 * (no multiplication), so these stay as large as the file's own entries: 390,000 and 420,000 of them.
 */
const knownDifferences = new Set(['1300 services merging 300 keys', '1400 services merging 300 keys'])

type Verdict = 'ok' | 'excessive aliasing' | 'alias to itself'

function goYamlVerdict(text: string): Verdict {
  if (text === 'ok') return 'ok'
  if (text === 'yaml: document contains excessive aliasing') return 'excessive aliasing'
  if (/^yaml: anchor '.+' value contains itself$/.test(text)) return 'alias to itself'
  throw new Error(`an oracle verdict this test does not know: ${text}`)
}

function vaultVerdict(text: string): Verdict {
  try {
    parseComposeYaml(text, 'compose.yaml')
    return 'ok'
  } catch (error) {
    const message = (error as Error).message
    if (message.endsWith('invalid YAML: document contains excessive aliasing')) return 'excessive aliasing'
    if (message.endsWith('invalid YAML: an anchored value contains an alias to itself'))
      return 'alias to itself'
    throw error
  }
}

describe("alias expansion against go-yaml's verdicts", () => {
  const cases = aliasCases()

  it('has a recorded verdict for every case, of both kinds', () => {
    expect(cases.map((entry) => entry.name).sort()).toEqual([...verdicts.keys()].sort())
    const kinds = new Set([...verdicts.values()].map(goYamlVerdict))
    expect(kinds).toEqual(new Set(['ok', 'excessive aliasing', 'alias to itself']))
  })

  it.each(cases.map((entry) => [entry.name, entry.text]))('%s', (name, text) => {
    const expected = goYamlVerdict(verdicts.get(name)!)
    if (knownDifferences.has(name)) {
      expect(expected).toBe('excessive aliasing')
      expect(vaultVerdict(text)).toBe('ok')
    } else {
      expect(vaultVerdict(text)).toBe(expected)
    }
  })
})

describe('vault render on alias bombs', () => {
  const directory = mkdtempSync(join(tmpdir(), 'vault-alias-bombs-'))
  afterAll(() => rmSync(directory, { recursive: true, force: true }))

  /** `levels` levels of anchored values, each using the one before 8 times, then a service using the last. */
  function bomb(style: 'block' | 'flow', levels: number): string {
    let text = style === 'block' ? 'x-l0: &l0\n  k: v\n' : 'x-l0: &l0 ["lol", "lol"]\n'
    for (let level = 1; level <= levels; level++) {
      const uses = Array.from({ length: 8 }, (_, i) =>
        style === 'block' ? `  k${i}: *l${level - 1}\n` : `*l${level - 1}`,
      )
      text +=
        style === 'block'
          ? `x-l${level}: &l${level}\n${uses.join('')}`
          : `x-l${level}: &l${level} [${uses.join(', ')}]\n`
    }
    return `${text}services:\n  web:\n    image: nginx\n    labels: *l${levels}\n`
  }

  it.each([
    ['block mappings (the fast parser)', bomb('block', 6)],
    ['block mappings, one level more', bomb('block', 7)],
    ['flow sequences (the full parser)', bomb('flow', 7)],
  ])('%s: exit 2 with compose message, nothing printed, bounded cost', async (_name, text) => {
    const file = join(directory, 'compose.yaml')
    writeFileSync(file, text)
    const run = await runMeasured(['render', '-f', file], {})
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain('invalid YAML: document contains excessive aliasing')
    expect(run.peak).toBeLessThan(200 * 1024 * 1024)
    expect(run.ms).toBeLessThan(10_000)
    expect(run.stdout).toBe('')
  })
})
