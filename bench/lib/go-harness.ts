/**
 * The Go side of the proxy benchmark's harness (fake-engine.go and load.go), as the issue's own figures
 * were measured: built with the installed `go` into a scratch directory, and driven with the same
 * options and results as load.ts's runLoad, plus the CPU time the load generator spent.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { LoadOptions, LoadResult } from './load.js'

const source = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url))

/** Whether `go` is installed. */
export const goInstalled = (): boolean => spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0

/** Builds bench/lib/NAME.go into `dir`; returns the binary's path. */
export function buildGo(dir: string, name: string): string {
  const binary = join(dir, name)
  execFileSync('go', ['build', '-o', binary, source(`${name}.go`)], { stdio: 'inherit' })
  return binary
}

/** runLoad through load.go (built by buildGo(dir, 'load')); cpuMicros is the generator's own CPU time. */
export async function runGoLoad(
  binary: string,
  dir: string,
  options: LoadOptions,
): Promise<LoadResult & { cpuMicros: number }> {
  if (typeof options.request === 'function') throw new Error('load.go sends one fixed request')
  const requestFile = join(dir, 'request.bin')
  writeFileSync(requestFile, options.request)
  const endpoint =
    'socketPath' in options.endpoint
      ? `unix:${options.endpoint.socketPath}`
      : `tcp:${options.endpoint.host}:${options.endpoint.port}`
  const args = [endpoint, options.connections, options.durationMs, options.maxRequests, requestFile]
  const { stdout } = await promisify(execFile)(binary, args.map(String), { maxBuffer: 256 << 20 })
  const result = JSON.parse(stdout) as Omit<LoadResult, 'sent'> & { cpuMicros: number }
  return { ...result, sent: result.latencies.length }
}
