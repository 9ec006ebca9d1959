/**
 * The speed machinery that depends on @oclif/core's compiled text and protected members (docs/decisions.md,
 * "Speed machinery kept"): the string patches of scripts/oclif-patches.mjs (lean start-up path, command
 * sort) and the lean runner's call of Command's `_run` (src/cli/lean-run.ts). An upgrade of @oclif/core
 * fails here, naming the piece and the version, before anyone relies on a build that was not checked.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { compileFunction } from 'node:vm'
import { Command } from '@oclif/core/command'
import { describe, expect, it } from 'vitest'
import {
  applyPatches,
  commandSortPatch,
  leanPatches,
  patchedOclifVersion,
  oclifVersionMismatch,
} from '../../scripts/oclif-patches.mjs'

const require = createRequire(import.meta.url)
const oclifRoot = dirname(require.resolve('@oclif/core/package.json'))
const installed = (JSON.parse(readFileSync(join(oclifRoot, 'package.json'), 'utf8')) as { version: string })
  .version
const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>
}
const pieces = [
  ...leanPatches.map((patch) => ({ piece: 'lean start-up path', ...patch })),
  { piece: 'command sort of the full path', ...commandSortPatch },
]

describe(`the string patches to @oclif/core ${patchedOclifVersion}'s compiled files`, () => {
  it('are applied to the installed version they were written against', () => {
    expect(oclifVersionMismatch(installed), `installed @oclif/core ${installed}`).toBeUndefined()
  })

  it('and package.json pins exactly that version', () => {
    expect(
      packageJson.dependencies['@oclif/core'],
      `package.json must pin @oclif/core to ${patchedOclifVersion} (no range): the patches match its compiled text`,
    ).toBe(patchedOclifVersion)
  })

  it.each(pieces)('$piece: $file holds `$before` exactly once', ({ piece, file, before }) => {
    const source = readFileSync(join(oclifRoot, file), 'utf8')
    expect(
      source.split(before).length - 1,
      `${piece} (scripts/oclif-patches.mjs): @oclif/core ${installed}'s ${file} should hold \`${before}\` once`,
    ).toBe(1)
  })

  it.each([...new Set(pieces.map(({ file }) => file))])('%s still compiles once patched', (file) => {
    const patched = applyPatches(file, readFileSync(join(oclifRoot, file), 'utf8'), [
      ...leanPatches,
      commandSortPatch,
    ])
    expect(() =>
      compileFunction(patched, ['exports', 'require', 'module', '__filename', '__dirname']),
    ).not.toThrow()
  })

  it('refuses a text that changed, naming the file and the text', () => {
    expect(() => applyPatches('lib/config/plugin.js', 'commands.sort()', [commandSortPatch])).toThrow(
      /lib\/config\/plugin\.js should hold `\.sort\(\(a, b\) => a\.id\.localeCompare\(b\.id\)\)` exactly once/,
    )
  })
})

describe(`the lean runner's use of @oclif/core ${patchedOclifVersion}`, () => {
  it("runs a command through Command's protected _run (src/cli/lean-run.ts)", () => {
    expect(
      typeof (Command.prototype as unknown as { _run?: unknown })._run,
      `lean start-up path (src/cli/lean-run.ts): @oclif/core ${installed}'s Command has no _run`,
    ).toBe('function')
  })
})
