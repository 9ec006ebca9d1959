// Bundles, with esbuild, the two programs vault runs (after tsc has compiled src/ to dist/):
// - the CLI (the oclif runner and every command) into dist/cli/: ES modules split into shared chunks, so
//   a command loads @oclif/core and its own code from a few files instead of hundreds (start-up time,
//   see bench/cli-startup.ts);
// - the proxy's serving process into the single file dist/proxy/main.js, replacing tsc's entry, so it
//   loads one module (memory, see bench/proxy.ts). The rest of dist/ (the library API) stays tsc's output.
// In both, Node's built-in modules are loaded with require(), which avoids building an ES-module facade
// over every export of each one.
import { build } from 'esbuild'
import { globSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import {
  applyPatches,
  commandSortPatch,
  leanExternals,
  leanPatches,
  oclifFile,
  oclifVersionMismatch,
} from './oclif-patches.mjs'

/** `import x from 'node:fs'` becomes a property lookup on `require('node:fs')`. */
const builtinsThroughRequire = {
  name: 'builtins-through-require',
  setup(context) {
    context.onResolve({ filter: /^(node:)?[a-z0-9_/]+$/ }, ({ path, kind }) =>
      kind === 'import-statement' && isBuiltin(path) ? { path, namespace: 'builtin' } : undefined,
    )
    context.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(path)})`,
      loader: 'js',
    }))
  },
}

/** The installed @oclif/core must be the one scripts/oclif-patches.mjs was written against. */
const oclifVersion = JSON.parse(await readFile('node_modules/@oclif/core/package.json', 'utf8')).version
const mismatch = oclifVersionMismatch(oclifVersion)
if (mismatch) throw new Error(mismatch)

/**
 * Applies `patches` (scripts/oclif-patches.mjs) to @oclif/core's compiled files; the build fails when a
 * patched text is not found exactly once.
 */
const oclifPatches = (patches) => ({
  name: 'oclif-patches',
  setup(context) {
    context.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/].*\.js$/ }, async ({ path }) => {
      const file = oclifFile(path)
      if (!patches.some((candidate) => candidate.file === file)) return undefined
      return { contents: applyPatches(file, await readFile(path, 'utf8'), patches), loader: 'js' }
    })
  },
})

/** The entry of dist/cli/lean/<id>.js: command `id` and the lean runner (src/cli/lean-run.ts). */
const leanEntries = {
  name: 'lean-entries',
  setup(context) {
    context.onResolve({ filter: /^lean-entry:/ }, ({ path }) => ({
      path: path.slice('lean-entry:'.length),
      namespace: 'lean-entry',
    }))
    context.onLoad({ filter: /.*/, namespace: 'lean-entry' }, ({ path: id }) => ({
      contents: [
        `import CommandClass from './src/commands/${id}.ts'`,
        "import { runLean } from './src/cli/lean-run.ts'",
        `export const runLeanCommand = (argv, root) => runLean(${JSON.stringify(id)}, CommandClass, argv, root)`,
      ].join('\n'),
      resolveDir: process.cwd(),
      loader: 'ts',
    }))
  },
}

const entryPoints = [
  { in: 'src/cli/oclif-path.ts', out: 'oclif-path' },
  { in: 'src/cli/main.ts', out: 'main' },
  ...globSync('src/commands/**/*.ts').map((file) => ({
    in: file,
    out: file.slice('src/'.length, -'.ts'.length),
  })),
]

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  sourcemap: 'linked',
  plugins: [builtinsThroughRequire],
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
  logLevel: 'warning',
}

/** The CLI's builds: ES-module chunks for Node 24. */
const cliOptions = {
  ...common,
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  // The CLI runs under Node 24 only (bin/run.js): its chunks take `require` without an ES import of
  // node:module, whose module facade costs start-up time.
  banner: {
    js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);",
  },
  // typescript: oclif's optional TS-path support, never used by a built CLI; the rest hold native code.
  external: ['typescript', '@napi-rs/keyring', 'pg-native'],
}

await build({
  ...cliOptions,
  entryPoints,
  outdir: 'dist/cli',
  plugins: [builtinsThroughRequire, oclifPatches([commandSortPatch])],
})

/** The ids of src/cli/lean.ts (src/cli is not compiled by tsc: it is read through esbuild here). */
async function readLeanCommandIds() {
  const { outputFiles } = await build({ entryPoints: ['src/cli/lean.ts'], format: 'esm', write: false })
  const module = await import(`data:text/javascript,${encodeURIComponent(outputFiles[0].text)}`)
  return module.leanCommandIds
}

// The lean path's data commands (src/cli/lean.ts), each with the lean runner, bundled into one file of
// its own, dist/cli/lean/<id>.js, its dynamic imports included (V8 compiles a function only when it
// first runs, so code a run never reaches costs little). One build per command, not one split build
// for all four: figures in docs/cli-performance.md.
for (const id of await readLeanCommandIds()) {
  await build({
    ...cliOptions,
    entryPoints: [{ in: `lean-entry:${id}`, out: id }],
    outdir: 'dist/cli/lean',
    splitting: false,
    plugins: [builtinsThroughRequire, oclifPatches(leanPatches), leanEntries],
    external: [...cliOptions.external, ...leanExternals],
  })
}

await build({
  ...common,
  entryPoints: ['src/proxy/main.ts'],
  outfile: 'dist/proxy/main.js',
  allowOverwrite: true,
})
