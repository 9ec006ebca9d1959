/**
 * Re-executes the lean proxy entry (`main.js`) as a child process with small V8 semi-spaces, so the
 * serving process carries neither oclif nor the rest of the CLI. Settings travel as PROXY_* variables;
 * SIGTERM and SIGINT are passed on and the child's exit code comes back.
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { packagePath } from '../package-root.js'
import { settingsEnvNames, settingsToEnv, type ProxySettings } from './config.js'

/**
 * V8 flags of the serving process, chosen by measuring peak RSS and CPU per request (bench/proxy.ts):
 * a 1 MB young generation; no V8 worker threads (GC on the main thread); and no TurboFan and no
 * Sparkplug (`--max-opt=2` keeps Ignition and Maglev): TurboFan's first compile alone pages in about
 * 6 MB of the Node binary's compiler code and its zones, for a few percent less CPU on this workload.
 * Measured under the benchmark's load: peak RSS about 56 MB instead of 64, of which about 41 MB are
 * the Node binary's shared file pages.
 */
export const proxyNodeFlags = [
  '--max-semi-space-size=1',
  '--single-threaded',
  '--max-opt=2',
  '--no-sparkplug',
]

/** Path of the lean entry point: compiled by tsc, never bundled, so that it loads nothing else. */
const proxyMainPath = packagePath('dist', 'proxy', 'main.js')

/** Runs the proxy in a child process until it exits; resolves with its exit code. */
export function launchProxyProcess(settings: ProxySettings, extraArgs: string[] = []): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of Object.values(settingsEnvNames)) delete env[name]
  Object.assign(env, settingsToEnv(settings))
  const child = spawn(process.execPath, [...proxyNodeFlags, proxyMainPath, ...extraArgs], {
    env,
    stdio: 'inherit',
  })
  const relay = (signal: NodeJS.Signals) => () => child.kill(signal)
  const onTerm = relay('SIGTERM')
  const onInt = relay('SIGINT')
  process.on('SIGTERM', onTerm)
  process.on('SIGINT', onInt)
  return new Promise((resolve) => {
    child.on('error', () => resolve(1))
    child.on('exit', (code, signal) => {
      process.off('SIGTERM', onTerm)
      process.off('SIGINT', onInt)
      resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1))
    })
  })
}
