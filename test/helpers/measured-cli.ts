/**
 * Runs the built CLI with the peak-memory reporter preloaded (report-max-rss.mjs) and returns its exit
 * code, output, peak resident memory (VmHWM, bytes) and wall time. `vault restore` replaces its process
 * under its own V8 flags (process.execve); the reporter travels with the Node options, so the peak is
 * the one of the process that did the work.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'

const reportRss = fileURLToPath(new URL('./report-max-rss.mjs', import.meta.url))
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url))

export interface MeasuredRun {
  exitCode: number | undefined
  stdout: string
  stderr: string
  /** Peak resident memory in bytes (VmHWM of the process). */
  peak: number
  ms: number
}

/** Runs `vault ARGS` with exactly `env` (plus PATH and LANG), measuring its peak memory. */
export async function runMeasured(args: string[], env: Record<string, string>): Promise<MeasuredRun> {
  const directory = mkdtempSync(join(tmpdir(), 'vault-rss-'))
  const rssFile = join(directory, 'rss')
  const started = process.hrtime.bigint()
  try {
    const result = await execa(process.execPath, ['--import', reportRss, '--', runJs, ...args], {
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8', VAULT_TEST_RSS_FILE: rssFile, ...env },
      extendEnv: false,
      reject: false,
      timeout: 240_000,
    })
    return {
      exitCode: result.exitCode,
      stdout: String(result.stdout),
      stderr: String(result.stderr),
      peak: Number(readFileSync(rssFile, 'utf8')),
      ms: Number(process.hrtime.bigint() - started) / 1e6,
    }
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}
