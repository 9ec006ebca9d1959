/**
 * Speed of `vault scan`'s search (issue 38): SCAN_BENCH_MB (default 1024) of log-like text with 1,000
 * secret values, each in plain, base64, URL and JSON form (plus the other base64 offsets and variants
 * vault adds: every pattern of src/scan/patterns.ts), searched by vault's one-pass matcher
 * (scanForSecrets over the file: pattern build, streaming reads, findings) and by GNU `grep -F -c -f`
 * with exactly the same patterns, in the same run. Target: vault within 2 x grep. A few hundred values
 * are planted in the text so both find something. The corpus lives in a temp dir, deleted at the end.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildPatternSet, type SecretValue } from '../src/scan/patterns.js'
import { scanForSecrets } from '../src/scan/scan.js'
import { printTable } from './lib/timing.js'

const megabytes = Number(process.env.SCAN_BENCH_MB ?? 1024)
const valueCount = 1000
const dir = mkdtempSync(join(tmpdir(), 'vault-bench-scan-'))
try {
  const values: SecretValue[] = Array.from({ length: valueCount }, (_, index) => ({
    name: `SECRET_${index}`,
    version: 1,
    current: true,
    value: randomBytes(12 + (index % 20)).toString('base64') + (index % 3 === 0 ? '/+&"' : ''),
  }))
  const set = buildPatternSet(values)
  const patternFile = join(dir, 'patterns')
  writeFileSync(patternFile, set.patterns.map((pattern) => pattern.toString('latin1')).join('\n') + '\n')
  const corpus = join(dir, 'corpus.log')
  writeCorpus(corpus, megabytes << 20, set.patterns)

  const grepStart = process.hrtime.bigint()
  const grep = spawnSync('grep', ['-F', '-c', '-f', patternFile, corpus], { env: { LC_ALL: 'C' } })
  const grepSeconds = Number(process.hrtime.bigint() - grepStart) / 1e9
  if (grep.status !== 0) throw new Error(`grep exited with ${grep.status}: ${grep.stderr.toString()}`)

  const vaultStart = process.hrtime.bigint()
  const result = await scanForSecrets(values, {
    secrets: valueCount,
    sources: { paths: [corpus] },
    expectedEnv: () => false,
    note: () => undefined,
  })
  const vaultSeconds = Number(process.hrtime.bigint() - vaultStart) / 1e9

  console.log(
    `${megabytes} MB, ${valueCount} values, ${set.patterns.length} patterns; grep matched ${grep.stdout.toString().trim()} lines, vault found ${result.findings.length} (value, encoding) pairs`,
  )
  printTable(
    ['search', 'seconds', 'x grep'],
    [
      ['grep -F -f', grepSeconds, 1],
      ['vault scan', vaultSeconds, vaultSeconds / grepSeconds],
    ],
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
}

/** Log-like lines of random words, with one pattern planted about every 4 MiB. */
function writeCorpus(path: string, size: number, patterns: readonly Buffer[]): void {
  const words = Array.from({ length: 5000 }, () =>
    randomBytes((3 + Math.random() * 8) | 0).toString('base64url'),
  )
  let block = ''
  while (block.length < 4 << 20)
    block += `${new Date(1e12 + block.length).toISOString()} INFO ${Array.from({ length: 10 }, () => words[(Math.random() * words.length) | 0]).join(' ')}\n`
  const fd = openSync(path, 'w')
  try {
    for (let written = 0, round = 0; written < size; round++) {
      const planted = Buffer.from(
        `${block}token=${patterns[(round * 7919) % patterns.length]!.toString('latin1')}\n`,
        'latin1',
      )
      writeSync(fd, planted)
      written += planted.length
    }
  } finally {
    closeSync(fd)
  }
}
