import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { parseEnvFile } from '../../../src/compose/env-file.js'
import { encodeDotenvLine, formatDotenv } from '../../../src/text/dotenv.js'

/** Values every reader (sh, compose, docker-compose v1) must read back exactly. */
const hostile: Record<string, string> = {
  DOLLAR: 'pa$word $HOME $$ $1 end$',
  SINGLE_QUOTE: "it's",
  DOUBLE_QUOTE: 'say "hi"',
  BOTH_QUOTES: `it's "quoted"`,
  BACKSLASH: 'C:\\path\\to',
  DOUBLE_BACKSLASH: 'a\\\\b',
  NEWLINES: 'line1\nline2\n\nline4',
  UNICODE: 'héllo wörld ☃ 日本 🎉',
  SPACES: '  leading and trailing  ',
  HASH: 'a #not a comment',
  EQUALS: 'a=b=c',
  EMPTY: '',
  PEM: '-----BEGIN KEY-----\nMIIB\\n+/=\n-----END KEY-----\n',
  QUOTE_AND_BACKSLASH: "it's a \\ b",
}
/**
 * Values only sh and compose read back: docker-compose v1's reader (python-dotenv 0.21) has no escape for
 * `${` and cannot end a quoted value with a backslash.
 */
const v2Only: Record<string, string> = {
  TRAILING_BACKSLASH: 'ends with \\',
  BRACE_REFERENCE: 'literal ${HOME} and ${X:-y}',
  QUOTE_AND_DOLLAR: "it's $5 \\ ${A}",
  BACKTICK: 'run `id` now',
}
const all = { ...hostile, ...v2Only }

const work = mkdtempSync(join(tmpdir(), 'vault-dotenv-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

function readWithShell(file: string, names: string[]): Record<string, string> {
  const script = `set -a; . "$1"; shift; for n in "$@"; do eval "printf '%s\\0' \\"\\$$n\\""; done`
  const out = execFileSync('sh', ['-c', script, 'sh', file, ...names], { env: { PATH: process.env.PATH } })
  const values = out.toString('utf8').split('\0').slice(0, names.length)
  return Object.fromEntries(names.map((name, i) => [name, values[i]!]))
}

const hasComposeV1 = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0

function readWithComposeV1(file: string, names: string[]): Record<string, string> {
  const dir = mkdtempSync(join(work, 'v1-'))
  const environment = Object.fromEntries(names.map((name) => [name, `\${${name}}`]))
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    JSON.stringify({ version: '3', services: { s: { image: 'x', environment } } }),
  )
  const out = execFileSync('docker-compose', ['--env-file', file, 'config'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const model = parseYaml(out.toString('utf8')) as {
    services: { s: { environment: Record<string, string> } }
  }
  return Object.fromEntries(
    Object.entries(model.services.s.environment).map(([name, value]) => [
      name,
      String(value).replaceAll('$$', '$'),
    ]),
  )
}

describe('dotenv export round trip', () => {
  const file = join(work, 'export.env')
  const { text, caveats } = formatDotenv(all)
  writeFileSync(file, text)

  it('reports no caveat for the values every reader can carry', () => {
    expect(Object.keys(caveats).filter((name) => name in hostile)).toEqual([])
  })

  it('is read back exactly by a POSIX shell', () => {
    expect(readWithShell(file, Object.keys(all))).toEqual(all)
  })

  it("is read back exactly by compose's env-file reader", () => {
    expect(parseEnvFile(text, () => undefined)).toEqual(all)
  })

  it("is read back exactly by compose's reader even when the environment sets the referenced names", () => {
    expect(parseEnvFile(text, (name) => `host-${name}`)).toEqual(all)
  })

  it.skipIf(!hasComposeV1)('is read back exactly by docker-compose v1 (--env-file, config)', () => {
    const v1File = join(work, 'v1.env')
    writeFileSync(v1File, formatDotenv(hostile).text)
    expect(readWithComposeV1(v1File, Object.keys(hostile))).toEqual(hostile)
  })

  it('names docker-compose v1 as the reader that cannot carry ${...}', () => {
    expect(caveats.BRACE_REFERENCE).toEqual(['docker-compose-v1'])
  })
})

describe('encodeDotenvLine', () => {
  it.each([
    ['plain', 'abc', "K='abc'"],
    ['dollar', 'a$b', "K='a$b'"],
    ['single quote', "it's", `K="it's"`],
    ['double backslash', 'a\\\\b', 'K="a\\\\\\\\b"'],
    ['quote and dollar', "it's $x", `K="it's \\$x"`],
  ])('%s', (_what, value, expected) => {
    expect(encodeDotenvLine('K', value).text).toBe(expected)
  })
})
