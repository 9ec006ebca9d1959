/**
 * Test helper: starts the built CLI as a long-running process (`vault run --watch`, `vault inject
 * --watch`) with a clean environment, collects its output, and waits (bounded) for a pattern in it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { runJs } from './cli.js'

export interface WatchedRun {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Waits (bounded) until stdout matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  exited: Promise<number | null>
}

/** Starts `vault ARGS` with `env` (plus PATH and LANG), stdin closed, output collected. */
export function startWatching(env: Record<string, string>, args: string[], cwd?: string): WatchedRun {
  const child = spawn(process.execPath, [runJs, ...args], {
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  const wakers = new Set<() => void>()
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
    for (const wake of wakers) wake()
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
    for (const wake of wakers) wake()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout + stderr)
          if (!match) return
          wakers.delete(check)
          clearTimeout(timer)
          resolve(match)
        }
        const timer = setTimeout(() => {
          wakers.delete(check)
          reject(new Error(`timed out waiting for ${pattern}:\n${stdout}\n${stderr}`))
        }, timeoutMs)
        wakers.add(check)
        check()
      })
    },
  }
}

/** Whether `pid` still runs, waiting (bounded) for an exited child to be reaped. */
export async function alive(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      process.kill(pid, 0)
    } catch {
      return false
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return true
}
