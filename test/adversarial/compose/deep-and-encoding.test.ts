/**
 * Compose files nested deep or holding bytes that are not text (deep-and-encoding-cases.ts). Before
 * src/compose/nesting-depth.ts a megabyte of `[[[[` took `vault render` 11 s and 1 GB before a stage
 * ran out of stack, and some depths of block mappings ended in an unclassified error (exit 1); before
 * src/compose/yaml-text.ts a byte that is not UTF-8 became U+FFFD and a NUL was rendered as `\u0000`.
 *
 * - go-yaml's verdicts (oracle/README.md) on every case: vault refuses what compose's YAML reader
 *   refuses, and accepts what it accepts, except the deliberate difference: vault's limit is 256
 *   levels, compose's 10,000 (docs/compose-differences.md).
 * - The built CLI on each refused case, as a `-f` file, an included file and an `extends` file: exit
 *   2, the file and line, nothing on stdout, in bounded time and memory.
 * - Files within the limit render, and exactly; so do non-ASCII text, emoji and UTF-16 files.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { parseComposeYaml } from '../../../src/compose/yaml-source.js'
import { decodeYamlText } from '../../../src/compose/yaml-text.js'
import { runMeasured } from '../../helpers/measured-cli.js'
import {
  blockMappings,
  encodingCases,
  inputCases,
  nonAsciiCompose,
  type InputCase,
} from './deep-and-encoding-cases.js'

const verdicts = new Map(
  readFileSync(fileURLToPath(new URL('./go-yaml-verdicts-deep-and-encoding.jsonl', import.meta.url)), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { name: string; verdict: string })
    .map(({ name, verdict }) => [name, verdict]),
)

/** go-yaml accepts these (its limit is 10,000 levels of flow and of indentation); vault refuses them. */
const deeperThanVault = /^(?:[\d,]+ nested block mappings|10,000 flow|.* 257 deep|.* 301 deep)/

const work = mkdtempSync(join(tmpdir(), 'vault-deep-encoding-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const bounded = { peak: 200 * 1024 * 1024, ms: 15_000 }
const cases = inputCases()
const refused = cases.filter((entry) => entry.vault !== 'ok')

function vaultVerdict(entry: InputCase): string {
  try {
    parseComposeYaml(decodeYamlText(entry.bytes, 'compose.yaml'), 'compose.yaml')
    return 'ok'
  } catch (error) {
    return (error as Error).message
  }
}

/** A project directory holding `files` (name -> content); returns its path. */
function project(name: string, files: Record<string, string | Buffer>): string {
  const directory = join(work, name.replace(/\W+/g, '-'))
  mkdirSync(directory, { recursive: true })
  for (const [file, content] of Object.entries(files)) writeFileSync(join(directory, file), content)
  return directory
}

async function render(file: string) {
  const run = await runMeasured(['render', '-f', file], {})
  expect(run.stderr).not.toMatch(/\n\s+at /)
  expect(run.peak).toBeLessThan(bounded.peak)
  expect(run.ms).toBeLessThan(bounded.ms)
  return run
}

const encodingNames = new Set(encodingCases().map((entry) => entry.name))

describe("against go-yaml's verdicts", () => {
  it('has a verdict for every case', () => {
    expect(cases.map((entry) => entry.name).sort()).toEqual([...verdicts.keys()].sort())
  })

  it.each(cases.map((entry) => [entry.name, entry] as const))('%s', (name, entry) => {
    const goYaml = verdicts.get(name)!
    const vault = vaultVerdict(entry)
    if (entry.vault === 'ok') expect(vault).toBe('ok')
    else expect(vault).toBe(`compose.yaml:${entry.line}: ${entry.vault}`)
    if (deeperThanVault.test(name)) expect([goYaml, vault === 'ok']).toEqual(['ok', false])
    else expect(goYaml === 'ok').toBe(vault === 'ok')
    // compose's own words for the reader's errors
    if (encodingNames.has(name) && goYaml !== 'ok') expect(vault).toContain(goYaml.replace(/^yaml: /, ''))
  })
})

describe('the built CLI on files nested too deep or not text', () => {
  const hostile = refused

  it.each(hostile.map((entry) => [entry.name, entry] as const))(
    '-f %s: exit 2, bounded',
    async (name, entry) => {
      const directory = project(name, { 'compose.yaml': entry.bytes })
      const file = join(directory, 'compose.yaml')
      const run = await render(file)
      expect(run.exitCode).toBe(2)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain(`Error: ${file}:${entry.line}: ${entry.vault}`)
    },
  )

  const byName = (name: string) => refused.find((entry) => entry.name.startsWith(name))!
  const included = 'include:\n  - other.yaml\nservices:\n  web:\n    image: nginx\n'
  const extended = 'services:\n  web:\n    extends:\n      file: other.yaml\n      service: base\n'
  it.each(
    (
      [
        ['an included file', included, byName('1 MiB of [')],
        ['an extends file', extended, byName('1 MiB of [')],
        ['an included file', included, byName('NUL in a value')],
        ['an extends file', extended, byName('NUL in a value')],
        ['an included file', included, byName('a file saved as Latin-1')],
        ['an extends file', extended, byName('a file saved as Latin-1')],
      ] as [string, string, InputCase][]
    ).map(([what, compose, entry]) => [what, entry.name, compose, entry] as const),
  )('%s: %s', async (what, _name, compose, entry) => {
    const directory = project(`${what} ${entry.name}`, { 'compose.yaml': compose, 'other.yaml': entry.bytes })
    const run = await render(join(directory, 'compose.yaml'))
    expect(run.exitCode).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain(`Error: ${join(directory, 'other.yaml')}:${entry.line}: ${entry.vault}`)
  })
})

describe('files within the limit', () => {
  it.each([50, 256])('block mappings %i deep render exactly', async (depth) => {
    const directory = project(`within ${depth}`, {
      'compose.yaml': `services:\n  web:\n    image: nginx\n${blockMappings(depth - 1)}`,
    })
    const run = await render(join(directory, 'compose.yaml'))
    expect(run.exitCode).toBe(0)
    const expected = ['x-deep:']
    for (let level = 2; level < depth; level++) expected.push(`${'  '.repeat(level - 1)}a:`)
    expected.push(`${'  '.repeat(depth - 1)}x: 1`)
    expect(run.stdout.slice(run.stdout.indexOf('x-deep:'))).toBe(expected.join('\n'))
  })

  it('non-ASCII text and emoji render exactly, from UTF-8 and from UTF-16', async () => {
    const utf8 = project('non-ascii-utf8', { 'compose.yaml': nonAsciiCompose })
    const run = await render(join(utf8, 'compose.yaml'))
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain('      CITY: "東京"\n      GREETING: "héllo wörld"\n')
    expect(run.stdout).toContain('      mood: "🎉 party 🐳"\n')
    const bom = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(nonAsciiCompose, 'utf16le')])
    const utf16 = project('non-ascii-utf16', { 'compose.yaml': bom })
    const fromUtf16 = await render(join(utf16, 'compose.yaml'))
    expect(fromUtf16.exitCode).toBe(0)
    expect(fromUtf16.stdout.replaceAll('non-ascii-utf16', 'P')).toBe(
      run.stdout.replaceAll('non-ascii-utf8', 'P'),
    )
  })
})
