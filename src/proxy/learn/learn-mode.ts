/**
 * `--learn FILE` as the serving process runs it: checks the settings, warns loudly (on stderr, whatever
 * the log level) at start and every `warnEveryMs`, writes FILE at start (so a path that cannot be
 * written stops the proxy at once, not hours later), at each warning (a crash loses at most one
 * interval) and at exit, each time whole and atomically (a temporary file beside it, fsync, rename)
 * with mode 600: it holds the paths clients asked for. At exit it logs one summary line per rule.
 */
import {
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs'
import { dirname, resolve } from 'node:path'
import { UsageError } from '../../errors.js'
import type { GuardSettings } from '../guard.js'
import type { ProxyLogger } from '../log.js'
import type { RuleSetConfig } from '../rule-sets.js'
import { learnedRulesText, learnedSummary } from './learned-file.js'
import { createLearner, type Learner } from './learner.js'

/** Learn mode's settings, resolved. */
export interface LearnSettings {
  file: string
  warnEveryMs: number
}

/** The shortest PROXY_LEARN_WARN_EVERY. */
export const minWarnEverySeconds = 1

/** Resolves PROXY_LEARN and PROXY_LEARN_WARN_EVERY; undefined without PROXY_LEARN. Throws UsageError. */
export function resolveLearnSettings(input: {
  learn?: string
  learnWarnEvery?: string
  rulesFile?: string
}): LearnSettings | undefined {
  if (input.learn === undefined) {
    if (input.learnWarnEvery !== undefined) throw new UsageError('PROXY_LEARN_WARN_EVERY needs PROXY_LEARN')
    return undefined
  }
  const every = input.learnWarnEvery ?? '60'
  if (!/^[0-9]+(\.[0-9]+)?$/.test(every))
    throw new UsageError(`PROXY_LEARN_WARN_EVERY "${every}" is not a number of seconds`)
  // each interval warns and rewrites the file: a few milliseconds would spin
  if (Number(every) < minWarnEverySeconds)
    throw new UsageError(
      `PROXY_LEARN_WARN_EVERY "${every}" is below ${minWarnEverySeconds} second (each interval warns and rewrites the file)`,
    )
  const file = resolve(input.learn)
  if (input.rulesFile !== undefined && resolve(input.rulesFile) === file)
    throw new UsageError(`PROXY_LEARN "${input.learn}" is the rules file`, {
      hint: 'learn mode writes the file at start: give it another name',
    })
  let isDirectory = false
  try {
    isDirectory = statSync(file).isDirectory()
  } catch {
    // a file that does not exist yet is written at start
  }
  if (isDirectory)
    throw new UsageError(`PROXY_LEARN "${input.learn}" is a directory`, {
      hint: 'name a file to write the learned rules to',
    })
  // the file is replaced by a rename: `--learn /dev/null` (as root) would replace the device, and a
  // symbolic link (`/dev/stdout`) the link, with a file of learned rules
  let existing: Stats | undefined
  try {
    existing = lstatSync(file)
  } catch (error) {
    if (!['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error
  }
  if (existing !== undefined && !existing.isFile())
    throw new UsageError(`PROXY_LEARN "${input.learn}" is not a regular file`, {
      hint: 'learn mode replaces the file it writes: name a new file, or a regular file it may replace',
    })
  try {
    if (!statSync(dirname(file)).isDirectory()) throw new Error('not a directory')
  } catch {
    throw new UsageError(`PROXY_LEARN "${input.learn}": its directory does not exist`)
  }
  const unsafe = unsafeDirectory(dirname(file))
  if (unsafe !== undefined)
    throw new UsageError(`PROXY_LEARN "${input.learn}": ${unsafe}`, {
      hint: 'whoever can replace the learned file chooses the rules the proxy enforces: write it in a directory only you (or root) can change',
    })
  return { file, warnEveryMs: Math.round(Number(every) * 1000) }
}

/**
 * Why another user could replace a file in `dir` (undefined when none can): `dir` or a directory above
 * it (symbolic links resolved) owned by someone other than this user or root, or writable by group or
 * others without the sticky bit (`/tmp` has it: there only the owner renames or removes a file).
 */
export function unsafeDirectory(dir: string): string | undefined {
  const uid = process.getuid?.()
  if (uid === undefined) return undefined
  let current = realpathSync(dir)
  for (;;) {
    const stat = statSync(current)
    if (stat.uid !== uid && stat.uid !== 0)
      return `the directory ${current} belongs to another user (uid ${stat.uid})`
    if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0)
      return `the directory ${current} can be written by other users (mode ${(stat.mode & 0o7777).toString(8)})`
    const parent = dirname(current)
    if (parent === current) return undefined
    current = parent
  }
}

/** Writes `text` to `file` whole or not at all: a private temporary file beside it, fsync, rename. */
export function writePrivateAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`
  rmSync(temporary, { force: true })
  const fd = openSync(temporary, 'wx', 0o600)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, file)
  // the rename itself survives a crash only once the directory is on disk
  const directory = openSync(dirname(file), 'r')
  try {
    fsyncSync(directory)
  } finally {
    closeSync(directory)
  }
}

export interface LearnMode {
  learner: Learner
  /** Stops the warnings, writes FILE a last time and logs the summary. */
  stop(): void
}

/** The warning, at start and every interval. */
const warning =
  'LEARN MODE: requests the rules or the host-escape guard refuse are FORWARDED (and recorded); this proxy protects nothing it would refuse. Turn --learn off once the rules are learned'

/**
 * Starts learn mode: `logger` gets "would refuse" lines; `loud` (a logger that writes warnings whatever
 * the configured level) gets the periodic warning and the summary. Throws UsageError when FILE cannot be
 * written.
 */
export function startLearnMode(
  settings: LearnSettings,
  proxy: { ruleSets: RuleSetConfig; guard: GuardSettings },
  loggers: { logger: ProxyLogger; loud: ProxyLogger },
): LearnMode {
  const { logger, loud } = loggers
  const learner = createLearner(proxy.ruleSets, { logger, guard: proxy.guard })
  const write = () => {
    const traffic = learner.traffic()
    writePrivateAtomically(settings.file, learnedRulesText(traffic, new Date()))
    return traffic
  }
  try {
    write()
  } catch (error) {
    throw new UsageError(
      `PROXY_LEARN "${settings.file}" cannot be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  const tell = (message: string) => {
    const traffic = learner.traffic()
    loud.log('warning', message, {
      file: settings.file,
      recorded: traffic.requests,
      wouldRefuse: traffic.wouldRefuse,
      refusedUnlearnable: traffic.refusedUnlearnable || undefined,
      notRecorded: traffic.notRecorded || undefined,
    })
  }
  tell(warning)
  const timer = setInterval(() => {
    tell(warning)
    try {
      write()
    } catch (error) {
      loud.log('error', 'learned rules not written', {
        file: settings.file,
        reason: (error as Error).message,
      })
    }
  }, settings.warnEveryMs)
  timer.unref()
  return {
    learner,
    stop() {
      clearInterval(timer)
      try {
        const traffic = write()
        for (const line of learnedSummary(traffic)) loud.log('warning', 'learned', { rule: line })
        tell('learned rules written')
      } catch (error) {
        loud.log('error', 'learned rules not written', {
          file: settings.file,
          reason: (error as Error).message,
        })
      }
    },
  }
}
