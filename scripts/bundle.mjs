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

/**
 * oclif sorts each plugin's commands with localeCompare; its first call builds an ICU collator, which
 * costs about 7 ms of every command's start-up. Command ids are ASCII, for which code-unit order is the
 * same order, so the bundle compares them directly. The build fails if oclif's code changes shape.
 */
const oclifCommandSort = {
  name: 'oclif-command-sort',
  setup(context) {
    context.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8')
      const sort = '.sort((a, b) => a.id.localeCompare(b.id))'
      if (!source.includes(sort)) throw new Error(`${path}: the command sort to replace was not found`)
      return {
        contents: source.replace(sort, '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))'),
        loader: 'js',
      }
    })
  },
}

/**
 * The lean path of the data commands (src/cli/lean.ts) imports oclif's Command, flags, parser and error
 * handling, whose modules require oclif's Config, help and template modules at load time although a
 * command that runs never uses them: Command.run's Config.load, help for flags and errors, ejs for help
 * templates. Evaluating those modules costs about a fifth of a data command's start-up, so in the
 * bundle these requires load on first use instead. Each replacement must match exactly once; the build
 * fails if oclif's code changes shape.
 */
const lazyOclifRequires = [
  [
    /lib[\\/]command\.js$/,
    'const config_1 = require("./config");',
    'const config_1 = { get Config() { return require("./config").Config; } };',
  ],
  [
    /lib[\\/]flags\.js$/,
    'const help_1 = require("./help");',
    'const help_1 = { get loadHelpClass() { return require("./help").loadHelpClass; } };',
  ],
  [
    /lib[\\/]errors[\\/]handle\.js$/,
    'const index_1 = require("../help/index");',
    'const index_1 = { get Help() { return require("../help/index").Help; } };',
  ],
  [
    /lib[\\/]help[\\/]util\.js$/,
    'const ejs_1 = __importDefault(require("ejs"));',
    'const ejs_1 = { get default() { return __importDefault(require("ejs")).default; } };',
  ],
]

/**
 * More of the same for the modules a data command loads but uses only when it prints an error, a
 * spinner or a debug line: `const x_1 = <require>;` becomes a stand-in that requires the module on
 * its first property access (these modules are used only as `x_1.name`, inside functions). The
 * `debug` package is not loaded at all on the lean path, which installs a silent oclif logger
 * (debug output needs DEBUG, which sends a command line to the full path).
 */
const lazyModuleRequires = [
  [/lib[\\/]logger\.js$/, 'const debug_1 = __importDefault(require("debug"));'],
  [
    /lib[\\/]errors[\\/]errors[\\/]cli\.js$/,
    'const clean_stack_1 = __importDefault(require("clean-stack"));',
  ],
  [
    /lib[\\/]errors[\\/]errors[\\/]cli\.js$/,
    'const indent_string_1 = __importDefault(require("indent-string"));',
  ],
  [/lib[\\/]errors[\\/]errors[\\/]cli\.js$/, 'const wrap_ansi_1 = __importDefault(require("wrap-ansi"));'],
  [/lib[\\/]errors[\\/]errors[\\/]cli\.js$/, 'const screen_1 = require("../../screen");'],
  [/lib[\\/]errors[\\/]errors[\\/]cli\.js$/, 'const theme_1 = require("../../ux/theme");'],
  [
    /lib[\\/]errors[\\/]errors[\\/]pretty-print\.js$/,
    'const indent_string_1 = __importDefault(require("indent-string"));',
  ],
  [
    /lib[\\/]errors[\\/]errors[\\/]pretty-print\.js$/,
    'const wrap_ansi_1 = __importDefault(require("wrap-ansi"));',
  ],
  [/lib[\\/]errors[\\/]errors[\\/]pretty-print\.js$/, 'const screen_1 = require("../../screen");'],
  [/lib[\\/]errors[\\/]handle\.js$/, 'const clean_stack_1 = __importDefault(require("clean-stack"));'],
  [/lib[\\/]ux[\\/]index\.js$/, 'const spinner_1 = __importDefault(require("./action/spinner"));'],
  [/lib[\\/]command\.js$/, 'const ux_1 = require("./ux");'],
  [/lib[\\/]parser[\\/]help\.js$/, 'const ux_1 = require("../ux");'],
  [/lib[\\/]parser[\\/]parse\.js$/, 'const node_readline_1 = require("node:readline");'],
  [/lib[\\/]parser[\\/]errors\.js$/, 'const list_1 = __importDefault(require("../ux/list"));'],
  [/lib[\\/]parser[\\/]errors\.js$/, 'const theme_1 = require("../ux/theme");'],
  [/lib[\\/]util[\\/]fs\.js$/, 'const promises_1 = require("node:fs/promises");'],
].map(([file, statement]) => {
  const [, name, expression] = /^const (\w+) = (.*);$/.exec(statement)
  return [file, statement, `const ${name} = __lazyModule(() => ${expression});`]
})

const lazyModuleFunction =
  '\nfunction __lazyModule(load) { let loaded; return new Proxy({}, { get: (_, key) => (loaded ??= load())[key] }); }\n'

/**
 * The lean bundles (below) leave out what the lazy requires above load and no lean command uses:
 * oclif's Config (plugin loading, globbing) and its help classes (with their templates), and `debug`
 * (the lean runner installs a silent logger). Were they ever needed, they load from node_modules:
 * @oclif/core's own exports, and `debug`, a dependency of vault's own.
 */
const leanExternalRequires = [
  [/lib[\\/]command\.js$/, 'require("./config").Config', 'require("@oclif/core/config").Config'],
  [/lib[\\/]flags\.js$/, 'require("./help").loadHelpClass', 'require("@oclif/core/help").loadHelpClass'],
  [/lib[\\/]errors[\\/]handle\.js$/, 'require("../help/index").Help', 'require("@oclif/core/help").Help'],
]
const leanExternals = ['@oclif/core/config', '@oclif/core/help', 'debug']

const oclifLazyRequires = (lean = false) => ({
  name: 'oclif-lazy-requires',
  setup(context) {
    context.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/].*\.js$/ }, async ({ path }) => {
      const edits = [
        ...lazyOclifRequires,
        ...lazyModuleRequires,
        ...(lean ? leanExternalRequires : []),
      ].filter(([file]) => file.test(path))
      if (edits.length === 0) return undefined
      let source = await readFile(path, 'utf8')
      for (const [, before, after] of edits) {
        if (source.split(before).length !== 2) throw new Error(`${path}: expected one \`${before}\``)
        source = source.replace(before, after)
      }
      if (source.includes('__lazyModule(')) source += lazyModuleFunction
      return { contents: source, loader: 'js' }
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
  plugins: [builtinsThroughRequire, oclifCommandSort, oclifLazyRequires()],
})

/** The ids of src/cli/lean.ts (src/cli is not compiled by tsc: it is read through esbuild here). */
async function readLeanCommandIds() {
  const { outputFiles } = await build({ entryPoints: ['src/cli/lean.ts'], format: 'esm', write: false })
  const module = await import(`data:text/javascript,${encodeURIComponent(outputFiles[0].text)}`)
  return module.leanCommandIds
}

// The lean path's data commands (src/cli/lean.ts), each with the lean runner, bundled into one file of
// its own, dist/cli/lean/<id>.js, its dynamic imports included (V8 compiles a function only when it
// first runs, so code a run never reaches costs little). A single build for all four split them into
// 136 shared chunks, of which `vault run` loaded 32. Start-up, interleaved medians against the split build:
// `vault run -- true` 71.2 -> 66.0 ms, `render` of a 34 KB file 69.7 -> 67.8 ms (`node -e 0`: 23-24 ms).
for (const id of await readLeanCommandIds()) {
  await build({
    ...cliOptions,
    entryPoints: [{ in: `lean-entry:${id}`, out: id }],
    outdir: 'dist/cli/lean',
    splitting: false,
    plugins: [builtinsThroughRequire, oclifLazyRequires(true), leanEntries],
    external: [...cliOptions.external, ...leanExternals],
  })
}

await build({
  ...common,
  entryPoints: ['src/proxy/main.ts'],
  outfile: 'dist/proxy/main.js',
  allowOverwrite: true,
})
