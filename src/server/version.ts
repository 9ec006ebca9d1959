/**
 * The version of this vault build, read once from its package.json: the health endpoint reports it and
 * backup manifests record it.
 */
import { readFileSync } from 'node:fs'
import { packagePath } from '../package-root.js'

let cachedAppVersion: string | undefined

/** The version of this vault build (from its package.json; `unknown` when it cannot be read). */
export function appVersion(): string {
  if (cachedAppVersion === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as {
        version?: string
      }
      cachedAppVersion = pkg.version ?? 'unknown'
    } catch {
      cachedAppVersion = 'unknown'
    }
  }
  return cachedAppVersion
}
