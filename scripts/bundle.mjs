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
import { isBuiltin } from 'node:module'

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

const entryPoints = [
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

await build({
  ...common,
  entryPoints,
  outdir: 'dist/cli',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  // typescript: oclif's optional TS-path support, never used by a built CLI; the rest hold native code.
  external: ['typescript', '@napi-rs/keyring', 'pg-native'],
})

await build({
  ...common,
  entryPoints: ['src/proxy/main.ts'],
  outfile: 'dist/proxy/main.js',
  allowOverwrite: true,
})
