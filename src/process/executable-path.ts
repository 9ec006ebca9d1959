/**
 * Where a command would be found on PATH, without running it: the first entry of PATH holding an
 * executable regular file of that name. Empty entries (the working directory, to a shell) are skipped.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** The path `name` resolves to on `env.PATH`; undefined when no entry holds it. */
export function executableOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const directory of (env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue
    const candidate = join(directory, name)
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // not here: the next entry
    }
  }
  return undefined
}
