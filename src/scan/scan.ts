/**
 * `vault scan`: searches the chosen sources (git history, git's index, files, standard input, a Docker
 * engine) for the current and past values of the environment's secrets, in one pass per input, and
 * returns what was found where. Values never leave this module's memory: findings name the secret,
 * the version and the encoding, never the text.
 */
import type { EngineScanCounts, EnvExpectation } from './engine-source.js'
import { FindingCollector, type ScanFinding } from './findings.js'
import { scanGitHistory, scanGitIndex, scanPath, scanStdin, type SourceContext } from './local-sources.js'
import { compileMatcher } from './matcher.js'
import { buildPatternSet, minimumScannedLength, type SecretValue } from './patterns.js'

export interface ScanSources {
  /** A git repository whose whole history (all refs) is scanned. */
  git?: string
  /** A git work tree whose index is scanned (for a pre-commit hook). */
  staged?: string
  /** Files or directories. */
  paths?: readonly string[]
  /** Standard input. */
  stdin?: AsyncIterable<Uint8Array>
  /** A Docker engine address (unix:// or tcp://). */
  engine?: string
}

export interface ScanOptions {
  environment?: string
  /** How many secrets the values belong to. */
  secrets: number
  sources: ScanSources
  expectedEnv: EnvExpectation
  note: (line: string) => void
}

export interface ScanResult {
  environment?: string
  /** Secrets whose values were searched. */
  secrets: number
  /** Distinct values searched (current and past, each in every encoding). */
  values: number
  /** Distinct values under 8 characters, not searched. */
  skippedShort: number
  /** What was scanned: `git DIR (N commits)`, `staged DIR`, `path P`, `stdin`, `engine ADDR (...)`. */
  scanned: string[]
  findings: ScanFinding[]
}

/** Scans the sources for `values`. */
export async function scanForSecrets(
  values: readonly SecretValue[],
  options: ScanOptions,
): Promise<ScanResult> {
  const set = buildPatternSet(values)
  if (set.tooShort > 0)
    options.note(
      `${set.tooShort} value${set.tooShort === 1 ? '' : 's'} under ${minimumScannedLength} characters not searched`,
    )
  const context: SourceContext = {
    matcher: compileMatcher(set.patterns),
    collector: new FindingCollector(set),
    note: options.note,
  }
  const scanned: string[] = []
  const { sources } = options
  if (sources.git !== undefined) {
    const { commits } = await scanGitHistory(sources.git, context)
    scanned.push(`git ${sources.git} (${commits} commit${commits === 1 ? '' : 's'})`)
  }
  if (sources.staged !== undefined) {
    await scanGitIndex(sources.staged, context)
    scanned.push(`staged ${sources.staged}`)
  }
  for (const path of sources.paths ?? []) {
    await scanPath(path, context)
    scanned.push(`path ${path}`)
  }
  if (sources.stdin) {
    await scanStdin(sources.stdin, context)
    scanned.push('stdin')
  }
  if (sources.engine !== undefined) {
    const { parseEngineAddress } = await import('./engine-client.js')
    const { scanEngine } = await import('./engine-source.js')
    const counts: EngineScanCounts = await scanEngine(parseEngineAddress(sources.engine), {
      ...context,
      expectedEnv: options.expectedEnv,
    })
    scanned.push(`engine ${sources.engine} (${counts.images} images, ${counts.containers} containers)`)
  }
  return {
    environment: options.environment,
    secrets: options.secrets,
    values: set.values,
    skippedShort: set.tooShort,
    scanned,
    findings: context.collector.findings,
  }
}
