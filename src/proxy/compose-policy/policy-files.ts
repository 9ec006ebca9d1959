/**
 * The compose files PROXY_COMPOSE_POLICY (or `--compose-policy`) names. The variable is split as
 * compose splits COMPOSE_FILE (settings.ts), so a path may hold blanks and commas. Before, it was split
 * at commas and blanks like the other list settings, and the documented form
 * `compose.yaml,compose.prod.yaml` is still read: an entry that is not a file, whose comma- or
 * blank-separated parts all are, stands for those files.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

const oldSeparators = /[\s,]+/

/** The files the entries name, relative paths against `cwd`; an entry that names nothing stays as it is. */
export function policyFiles(entries: readonly string[], cwd: string): string[] {
  return entries.flatMap((entry) => {
    if (existsSync(resolve(cwd, entry)) || !oldSeparators.test(entry)) return [entry]
    const parts = entry.split(oldSeparators).filter(Boolean)
    return parts.length > 0 && parts.every((part) => existsSync(resolve(cwd, part))) ? parts : [entry]
  })
}
