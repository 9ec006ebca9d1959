// The unit tests mirror src/: the test of src/a/b.ts is test/unit/a/b.test.ts, and a test of one more
// aspect of the same module is test/unit/a/b.<aspect>.test.ts (b.property.test.ts, b.fuzz.test.ts).
// test/unit/test-tree.test.ts holds the tree to this rule; `node scripts/test-tree.mjs` prints the
// source files without a mirrored test and the ratio.
import { existsSync, readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

export const root = resolve(import.meta.dirname, '..')

/** Unit tests of src/ as a whole rather than of one module (paths as unitTests gives them), each with why. */
export const crossModule = {
  // the import graph of every folder of src/ against the layer table of scripts/layers.mjs
  layers: 'the layers of src/',
  // the tree of test/unit/ against src/ (this script's own test)
  'test-tree': 'the mirror of src/ in test/unit/',
  // the private Node and V8 interfaces the proxy relies on (docs/decisions.md), checked on each Node upgrade
  // every command's --help, examples and --json offer against test/schemas
  'commands/help': 'the help of every command',
  // oclif's compiled text the build patches (scripts/oclif-patches.mjs) and its pinned version
  'oclif-patches': "the patches to oclif's compiled files",
  'proxy/node-internals': "Node's internals under src/proxy/",
}

/** Every file under `dir` whose name ends with `suffix`, relative to `dir`, sorted. */
export function filesUnder(dir, suffix) {
  const walk = (at) =>
    readdirSync(at, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? walk(join(at, entry.name))
        : entry.name.endsWith(suffix)
          ? [relative(dir, join(at, entry.name))]
          : [],
    )
  return existsSync(dir) ? walk(dir).sort() : []
}

/** The modules of src/, as paths without `src/` and `.ts` (`proxy/rules`). */
export function sourceModules(base = root) {
  return filesUnder(join(base, 'src'), '.ts')
    .filter((path) => !path.endsWith('.d.ts'))
    .map((path) => path.slice(0, -'.ts'.length))
}

/** The unit test files, as paths without `test/unit/` and `.test.ts` (`proxy/rules.property`). */
export function unitTests(base = root) {
  return filesUnder(join(base, 'test/unit'), '.test.ts').map((path) => path.slice(0, -'.test.ts'.length))
}

/**
 * The module a unit test names: `a/b` for `a/b.test.ts` and for `a/b.<aspect>.test.ts`, when src/a/b.ts
 * exists; undefined when the test names no module.
 */
export function moduleOf(test, modules) {
  const known = modules instanceof Set ? modules : new Set(modules)
  if (known.has(test)) return test
  const dot = test.lastIndexOf('.')
  const slash = test.lastIndexOf('/')
  if (dot > slash + 1 && known.has(test.slice(0, dot))) return test.slice(0, dot)
  return undefined
}

/** Which source modules have a mirrored test, and which tests name no module. */
export function testTree(modules, tests) {
  const known = new Set(modules)
  const tested = new Set()
  const unmatched = []
  for (const test of tests) {
    const module = moduleOf(test, known)
    if (module === undefined) unmatched.push(test)
    else tested.add(module)
  }
  return {
    tested: modules.filter((module) => tested.has(module)),
    untested: modules.filter((module) => !tested.has(module)),
    unmatched,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const modules = sourceModules()
  const tree = testTree(
    modules,
    unitTests().filter((test) => !(test in crossModule)),
  )
  const verbose = process.argv.includes('--list')
  if (verbose) for (const module of tree.untested) console.log(`untested  src/${module}.ts`)
  for (const test of tree.unmatched) console.log(`no module test/unit/${test}.test.ts`)
  console.log(
    `${tree.tested.length} of ${modules.length} source files have a mirrored unit test ` +
      `(${((100 * tree.tested.length) / modules.length).toFixed(1)} %); ${tree.unmatched.length} unit test files name no module`,
  )
}
