/**
 * Render cost, two tables:
 * - a generated 500-service compose file (about 5,000 lines, references in environment, labels and
 *   image tags): median wall time of `vault render` against `docker-compose config` (the v1 client) in
 *   one run. Target (issue 17, item 6): at most one tenth. `vault pwgen` (the full oclif frame) is
 *   printed too, for reference;
 * - real compose files of 8-35 KB (the largest of test/fixtures/compose-corpus, each with its SOURCE),
 *   where start-up dominates: `vault render` against `node -e 0` (the floor of any Node CLI) and, where
 *   the v1 client can read the file, `docker-compose config`, interleaved. Target (issue 17, item 6):
 *   at most 100 ms each and at most 3x `node -e 0`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, printTable, quantile, timeCommand, timeInterleaved } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const composeV1 = '/usr/bin/docker-compose'
const services = 500
const vaultRuns = Number(process.env.BENCH_RUNS ?? 15)
const composeRuns = Number(process.env.BENCH_COMPOSE_RUNS ?? 5)

function generateStack(count: number): string {
  const lines = ['services:']
  for (let index = 1; index <= count; index++) {
    const id = String(index).padStart(3, '0')
    lines.push(
      `  svc-${id}:`,
      `    image: "registry.local/app-${id}:\${TAG_${id}:-1.${index % 10}}"`,
      '    restart: unless-stopped',
      '    environment:',
      '      DB_PASSWORD: ${DATABASE_PASSWORD:?set it in the vault}',
      `      SERVICE_NAME: svc-${id}`,
      '      LOG_LEVEL: ${LOG_LEVEL:-info}',
      '    labels:',
      `      com.example.host: "svc-${id}.\${DOMAINNAME}"`,
      '      com.example.tz: ${TZ:-UTC}',
    )
  }
  return `${lines.join('\n')}\n`
}

const directory = mkdtempSync(join(tmpdir(), 'vault-bench-render-'))
try {
  const file = join(directory, 'compose.yaml')
  const text = generateStack(services)
  writeFileSync(file, text)
  const env = {
    PATH: process.env.PATH,
    DATABASE_PASSWORD: 'bench-password',
    DOMAINNAME: 'example.test',
  }
  const lineCount = text.split('\n').length - 1
  const vault = await timeCommand(process.execPath, [runJs, 'render', '-f', file], vaultRuns, env)
  const startup = await timeCommand(process.execPath, [runJs, 'pwgen'], vaultRuns, env)
  const rows: (string | number)[][] = [
    ['vault render', vaultRuns, median(vault), quantile(vault, 0.9), 1],
    [
      'vault pwgen (CLI start-up, for reference)',
      vaultRuns,
      median(startup),
      quantile(startup, 0.9),
      median(startup) / median(vault),
    ],
  ]
  if (existsSync(composeV1)) {
    const compose = await timeCommand(composeV1, ['-f', file, 'config'], composeRuns, env)
    const ratio = median(compose) / median(vault)
    rows.push(['docker-compose config', composeRuns, median(compose), quantile(compose, 0.9), ratio])
    console.log(`stack: ${services} services, ${lineCount} lines`)
    printTable(['command', 'runs', 'median ms', 'p90 ms', 'x vault render'], rows)
    const share = median(vault) / median(compose)
    console.log(
      `target: vault render <= 1/10 of docker-compose config -> ${share <= 0.1 ? 'met' : 'NOT met'} (${(share * 100).toFixed(1)}%)`,
    )
  } else {
    printTable(['command', 'runs', 'median ms', 'p90 ms', 'x vault render'], rows)
    console.log(`${composeV1} is not installed: no baseline in this run`)
  }
} finally {
  rmSync(directory, { recursive: true, force: true })
}

const corpus = fileURLToPath(new URL('../test/fixtures/compose-corpus/', import.meta.url))
const realStacks = ['temporal-multirole', 'nextcloud-aio', 'mailcow', 'sentry-self-hosted']
const realRounds = Number(process.env.BENCH_REAL_RUNS ?? 9)

interface CorpusCase {
  files: string[]
  env?: Record<string, string>
  v1?: string
}

const realRows: (string | number)[][] = []
let realMet = true
for (const stack of realStacks) {
  const directory = join(corpus, stack)
  const fixture = JSON.parse(readFileSync(join(directory, 'case.json'), 'utf8')) as CorpusCase
  const file = join(directory, fixture.files[0]!)
  const env = { PATH: process.env.PATH, ...fixture.env }
  const commands: [string, string[]][] = [
    [process.execPath, ['-e', '0']],
    [process.execPath, [runJs, 'render', '--project-directory', directory, '-f', file]],
  ]
  const withV1 = fixture.v1 === undefined && existsSync(composeV1)
  if (withV1) commands.push([composeV1, ['--project-directory', directory, '-f', file, 'config']])
  const [node, vault, compose] = timeInterleaved(commands, realRounds, env).map(median)
  const ok = vault! <= 100 && vault! <= 3 * node!
  realMet &&= ok
  realRows.push([
    `${stack} (${Math.round(statSync(file).size / 1024)} KB)`,
    node!.toFixed(1),
    vault!.toFixed(1),
    (vault! / node!).toFixed(2),
    compose === undefined ? `- (${fixture.v1 ? 'v1 refuses it' : 'no v1 client'})` : compose.toFixed(1),
    ok ? 'met' : 'NOT met',
  ])
}
console.log('')
printTable(
  ['real file', 'node -e 0 ms', 'vault render ms', 'x node', 'docker-compose config ms', '<=100 ms, <=3x'],
  realRows,
)
console.log(
  `${realRounds} interleaved rounds, medians; target (<= 100 ms and <= 3x node -e 0) ${realMet ? 'met' : 'NOT met'} on every file`,
)
