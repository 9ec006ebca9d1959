/**
 * Render start-up on real compose files of 8-35 KB (the largest of test/fixtures/compose-corpus):
 * median wall time of `vault render` against `node -e 0` (the floor of any Node CLI) and, where the
 * v1 client can read the file, `docker-compose config`, all interleaved in one run. Target (issue 17):
 * at most 100 ms each and at most 3x `node -e 0`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, printTable, timeInterleaved } from './lib/timing.js'

const runJs = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const corpus = fileURLToPath(new URL('../test/fixtures/compose-corpus/', import.meta.url))
const composeV1 = '/usr/bin/docker-compose'
const rounds = Number(process.env.BENCH_RUNS ?? 9)
const stacks = ['temporal-multirole', 'nextcloud-aio', 'mailcow', 'sentry-self-hosted']

interface CorpusCase {
  files: string[]
  env?: Record<string, string>
  v1?: string
}

const rows: (string | number)[][] = []
let met = true
for (const stack of stacks) {
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
  const [node, vault, compose] = timeInterleaved(commands, rounds, env).map(median)
  const ok = vault! <= 100 && vault! <= 3 * node!
  met &&= ok
  rows.push([
    `${stack} (${Math.round(statSync(file).size / 1024)} KB)`,
    node!.toFixed(1),
    vault!.toFixed(1),
    (vault! / node!).toFixed(2),
    compose === undefined ? `- (${fixture.v1 ? 'v1 refuses it' : 'no v1 client'})` : compose.toFixed(1),
    ok ? 'met' : 'NOT met',
  ])
}
printTable(
  ['file', 'node -e 0 ms', 'vault render ms', 'x node', 'docker-compose config ms', '<=100 ms, <=3x'],
  rows,
)
console.log(`${rounds} interleaved rounds, medians; target ${met ? 'met' : 'NOT met'} on every file`)
