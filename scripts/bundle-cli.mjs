// Bundles the CLI (the oclif runner and every command) into dist/cli/ with esbuild: ES modules split
// into shared chunks, so a command loads @oclif/core and its own code from a few files instead of
// hundreds. Start-up time is the reason (see bench/cli-startup.ts). Node's built-in modules are loaded
// with require(), which avoids building an ES-module facade over every export of each one. The library
// API (dist/index.js) and the lean proxy child (dist/proxy/main.js) stay tsc's output.
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

await build({
  entryPoints,
  outdir: 'dist/cli',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  sourcemap: 'linked',
  // typescript: oclif's optional TS-path support, never used by a built CLI; the rest hold native code.
  external: ['typescript', '@napi-rs/keyring', 'pg-native'],
  plugins: [builtinsThroughRequire],
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
  logLevel: 'warning',
})
