/**
 * The card's packages against vault's own replacements (docs/decisions.md), measured in one run:
 * - import cost (a fresh `node` per sample, interleaved) of got vs the own HTTP client, chalk vs no
 *   styling, dotenv vs the own env-file parser, against `node -e 0`;
 * - per-request cost of got vs the own client, sequential GETs to a local node:http server;
 * - the inputs on which dotenv.parse and compose's env-file rules (the own parser) disagree.
 * The packages come from CARD_PACKAGES_DIR, or are installed from the npm registry into a temporary
 * directory (`npm install got chalk dotenv`). Traffic only to 127.0.0.1.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createRequire } from 'node:module'
import { median, printTable, quantile, timeInterleaved } from './lib/timing.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const rounds = Number(process.env.BENCH_RUNS ?? 20)
const requests = Number(process.env.BENCH_REQUESTS ?? 500)

function packagesDir(): { dir: string; cleanup: () => void } {
  const given = process.env.CARD_PACKAGES_DIR
  if (given) return { dir: given, cleanup: () => undefined }
  const dir = mkdtempSync(join(tmpdir(), 'card-packages-'))
  writeFileSync(join(dir, 'package.json'), '{"name":"card-packages","private":true,"type":"module"}')
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', 'got', 'chalk', 'dotenv'], {
    cwd: dir,
    stdio: 'inherit',
  })
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

const { dir, cleanup } = packagesDir()
const version = (name: string, from = dir) =>
  (JSON.parse(readFileSync(join(from, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version
const dist = (path: string) => pathToFileURL(join(root, 'dist', path)).href
if (!existsSync(join(root, 'dist/client/http.js'))) throw new Error('run `make build` first')

// --- import cost -------------------------------------------------------------------------------------
const imports: [string, string][] = [
  ['node -e 0', '0'],
  [`got ${version('got')}`, "await import('got')"],
  ['own HTTP client (dist/client/http.js)', `await import('${dist('client/http.js')}')`],
  [`chalk ${version('chalk')}`, "await import('chalk')"],
  [`dotenv ${version('dotenv')}`, "await import('dotenv')"],
  ['own env-file parser (dist/compose/env-file.js)', `await import('${dist('compose/env-file.js')}')`],
  [
    `@napi-rs/keyring ${version('@napi-rs/keyring', root)}`,
    `await import('${pathToFileURL(createRequire(join(root, 'package.json')).resolve('@napi-rs/keyring')).href}')`,
  ],
]
const samples = timeInterleaved(
  imports.map(([, code]) => [process.execPath, ['--input-type=module', '-e', code]]),
  rounds,
  { ...process.env, NODE_PATH: '' },
  dir,
)
const baseline = median(samples[0]!)
console.log(`import cost: a fresh node per sample, ${rounds} rounds interleaved (cwd ${dir})`)
printTable(
  ['import', 'median ms', 'p90 ms', 'added over node -e 0 ms'],
  imports.map(([label], index) => [
    label,
    median(samples[index]!),
    quantile(samples[index]!, 0.9),
    median(samples[index]!) - baseline,
  ]),
)

// --- per-request cost --------------------------------------------------------------------------------
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end('{"secrets":[{"name":"A","version":1}]}')
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
const requireFromDir = createRequire(join(dir, 'package.json'))
const got = (await import(pathToFileURL(requireFromDir.resolve('got')).href)).default as (url: string) => {
  json(): Promise<unknown>
}
const { createHttpClient } = (await import(dist('client/http.js'))) as typeof import('../src/client/http.js')
const own = createHttpClient({ baseUrl: new URL(base) })

async function perRequest(send: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 50; i++) await send()
  const times: number[] = []
  for (let i = 0; i < requests; i++) {
    const start = process.hrtime.bigint()
    await send()
    times.push(Number(process.hrtime.bigint() - start) / 1e3)
  }
  return times
}
const ownTimes: number[][] = []
const gotTimes: number[][] = []
for (let round = 0; round < 3; round++) {
  ownTimes.push(await perRequest(() => own({ method: 'GET', path: 'x' })))
  gotTimes.push(await perRequest(() => got(`${base}x`).json()))
}
server.close()
console.log(`\nper request: ${requests} sequential GETs x 3 rounds, JSON body, local node:http server`)
printTable(
  ['client', 'median µs', 'p90 µs'],
  [
    ['own HTTP client', median(ownTimes.flat()), quantile(ownTimes.flat(), 0.9)],
    [`got ${version('got')}`, median(gotTimes.flat()), quantile(gotTimes.flat(), 0.9)],
  ],
)

// --- dotenv vs compose's env-file rules --------------------------------------------------------------
const dotenv = requireFromDir('dotenv') as { parse(text: string): Record<string, string> }
const { parseEnvFile } = (await import(
  dist('compose/env-file.js')
)) as typeof import('../src/compose/env-file.js')
const environment: Record<string, string> = { B: 'bee', FROM_ENV: 'from-environment' }
const inputs = [
  'A=${B}',
  'A=${UNSET:-fallback}',
  'A=$$literal',
  "A='${B}'",
  'A="${B}"',
  'A=value#not-a-comment',
  'A=value # a comment',
  'A="a\\"b"',
  "A='a\\nb'",
  'A="a\\tb"',
  'FROM_ENV',
  'export A=1',
  'A=  spaced  ',
]
const rows: string[][] = []
for (const input of inputs) {
  let compose: string
  try {
    compose = JSON.stringify(parseEnvFile(input, (name) => environment[name]))
  } catch (error) {
    compose = `error: ${(error as Error).message}`
  }
  const other = JSON.stringify(dotenv.parse(input))
  if (compose !== other) rows.push([JSON.stringify(input), compose, other])
}
console.log(
  `\nenv-file inputs read differently (${rows.length} of ${inputs.length}); environment ${JSON.stringify(environment)}`,
)
printTable(['input', 'compose rules (own parser)', `dotenv ${version('dotenv')}`], rows)

// --- the own YAML reader (compose's common subset) against the yaml package it falls back to ----------
const { parseSimpleYaml } = (await import(
  dist('compose/fast-yaml.js')
)) as typeof import('../src/compose/fast-yaml.js')
const { parse: parseYaml } = createRequire(join(root, 'package.json'))('yaml') as typeof import('yaml')
const compose = ['services:']
for (let i = 0; i < 500; i++) {
  compose.push(`  svc${i}:`, `    image: registry.example/app:\${TAG:-1.${i}}`, '    environment:')
  for (let j = 0; j < 6; j++) compose.push(`      VAR_${j}: \${SECRET_${i}_${j}}`)
  compose.push('    ports:', `      - "${8000 + i}:80"`)
}
const composeText = `${compose.join('\n')}\n`
const timeParse = (parse: (text: string) => unknown) => {
  for (let i = 0; i < 5; i++) parse(composeText)
  const times: number[] = []
  for (let i = 0; i < 30; i++) {
    const start = process.hrtime.bigint()
    parse(composeText)
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return times
}
const fast = timeParse((text) => parseSimpleYaml(text))
const full = timeParse((text) => parseYaml(text))
console.log(`\nYAML: a ${compose.length}-line, 500-service compose file, 30 parses each`)
printTable(
  ['reader', 'median ms', 'p90 ms'],
  [
    ['own fast reader (compose/fast-yaml.ts)', median(fast), quantile(fast, 0.9)],
    [`yaml ${version('yaml', root)} parse()`, median(full), quantile(full, 0.9)],
  ],
)
cleanup()
