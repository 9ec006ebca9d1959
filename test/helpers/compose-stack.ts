/** Test helper: writes a throw-away stack directory from a map of relative paths to contents. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach } from 'vitest'

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
