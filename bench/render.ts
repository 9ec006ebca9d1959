/**
 * Render cost on a large stack: a generated 500-service compose file (about 5,000 lines, references
 * in environment, labels and image tags), median wall time of `vault render` against
 * `docker-compose config` (the v1 client) in one run. Target (issue 3): at most one tenth. The
 * start-up of the CLI frame alone (`vault pwgen`) is printed too, as the floor of any command.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, printTable, quantile, timeCommand } from './lib/timing.js'

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
