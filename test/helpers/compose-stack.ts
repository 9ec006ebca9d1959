/** Test helper: writes a throw-away stack directory from a map of relative paths to contents (and loads it). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach } from 'vitest'
import { loadComposeProject, type LoadComposeOptions } from '../../src/compose/load.js'
import type { ComposeProject } from '../../src/compose/types.js'

const created: string[] = []

afterEach(() => {
  for (const directory of created.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** Creates the files under a new temporary directory (removed after the test) and returns it. */
export function writeStack(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'vault-stack-'))
  created.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

/** Writes the stack and loads it with an empty environment (plus the options); returns both. */
export function loadStack(
  files: Record<string, string>,
  options: LoadComposeOptions = {},
): { cwd: string; project: ComposeProject } {
  const cwd = writeStack(files)
  return { cwd, project: loadComposeProject({ cwd, environment: {}, ...options }) }
}
