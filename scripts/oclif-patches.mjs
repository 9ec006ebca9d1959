// The string patches scripts/bundle.mjs applies to @oclif/core's compiled files, and the version they
// were written against. Each one was measured and kept for its saving (docs/decisions.md, "Speed
// machinery kept"); they depend on the exact text of that version, so package.json pins @oclif/core
// exactly, the build refuses another version, and test/unit/oclif-patches.test.ts fails on an upgrade.

/** The @oclif/core version whose compiled text the patches below match. */
export const patchedOclifVersion = '5.1.9'

/**
 * A patch: in @oclif/core's `file` (a path under the package), `before` occurs exactly once and becomes
 * `after`.
 */
const patch = (file, before, after) => ({ file, before, after })

/**
 * The full CLI build: oclif sorts each plugin's commands with localeCompare, whose first call builds an
 * ICU collator. Command ids are ASCII, for which code-unit order is the same order.
 */
export const commandSortPatch = patch(
  'lib/config/plugin.js',
  '.sort((a, b) => a.id.localeCompare(b.id))',
  '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))',
)

/**
 * The lean bundles (src/cli/lean.ts): oclif's Command, flags, parser and error handling require its
 * Config, help and template modules at load time although a running data command never uses them.
 * These requires load on first use instead, from node_modules (the lean bundles leave them out).
 */
const lazyOclifRequires = [
  patch(
    'lib/command.js',
    'const config_1 = require("./config");',
    'const config_1 = { get Config() { return require("@oclif/core/config").Config; } };',
  ),
  patch(
    'lib/flags.js',
    'const help_1 = require("./help");',
    'const help_1 = { get loadHelpClass() { return require("@oclif/core/help").loadHelpClass; } };',
  ),
  patch(
    'lib/errors/handle.js',
    'const index_1 = require("../help/index");',
    'const index_1 = { get Help() { return require("@oclif/core/help").Help; } };',
  ),
  patch(
    'lib/help/util.js',
    'const ejs_1 = __importDefault(require("ejs"));',
    'const ejs_1 = { get default() { return __importDefault(require("ejs")).default; } };',
  ),
]

/**
 * The lean bundles: modules a data command loads but uses only for an error, a spinner or a debug line.
 * `const x_1 = <require>;` becomes a stand-in that requires the module on its first property access
 * (these modules are used only as `x_1.name`, inside functions). `debug` is then not loaded at all: the
 * lean runner installs a silent oclif logger (debug output needs DEBUG, which takes the full path).
 */
const lazyModuleRequires = [
  ['lib/logger.js', 'const debug_1 = __importDefault(require("debug"));'],
  ['lib/errors/errors/cli.js', 'const clean_stack_1 = __importDefault(require("clean-stack"));'],
  ['lib/errors/errors/cli.js', 'const indent_string_1 = __importDefault(require("indent-string"));'],
  ['lib/errors/errors/cli.js', 'const wrap_ansi_1 = __importDefault(require("wrap-ansi"));'],
  ['lib/errors/errors/cli.js', 'const screen_1 = require("../../screen");'],
  ['lib/errors/errors/cli.js', 'const theme_1 = require("../../ux/theme");'],
  ['lib/errors/errors/pretty-print.js', 'const indent_string_1 = __importDefault(require("indent-string"));'],
  ['lib/errors/errors/pretty-print.js', 'const wrap_ansi_1 = __importDefault(require("wrap-ansi"));'],
  ['lib/errors/errors/pretty-print.js', 'const screen_1 = require("../../screen");'],
  ['lib/errors/handle.js', 'const clean_stack_1 = __importDefault(require("clean-stack"));'],
  ['lib/ux/index.js', 'const spinner_1 = __importDefault(require("./action/spinner"));'],
  ['lib/command.js', 'const ux_1 = require("./ux");'],
  ['lib/parser/help.js', 'const ux_1 = require("../ux");'],
  ['lib/parser/parse.js', 'const node_readline_1 = require("node:readline");'],
  ['lib/parser/errors.js', 'const list_1 = __importDefault(require("../ux/list"));'],
  ['lib/parser/errors.js', 'const theme_1 = require("../ux/theme");'],
  ['lib/util/fs.js', 'const promises_1 = require("node:fs/promises");'],
].map(([file, statement]) => {
  const [, name, expression] = /^const (\w+) = (.*);$/.exec(statement)
  return patch(file, statement, `const ${name} = __lazyModule(() => ${expression});`)
})

/** Appended to a file whose patches use `__lazyModule`. */
export const lazyModuleFunction =
  '\nfunction __lazyModule(load) { let loaded; return new Proxy({}, { get: (_, key) => (loaded ??= load())[key] }); }\n'

/** Every patch of the lean bundles. */
export const leanPatches = [...lazyOclifRequires, ...lazyModuleRequires]

/** What the lean bundles load from node_modules if ever needed, instead of bundling it. */
export const leanExternals = ['@oclif/core/config', '@oclif/core/help', 'debug']

/** The message when the installed @oclif/core is not the one the patches were written against. */
export function oclifVersionMismatch(installed) {
  if (installed === patchedOclifVersion) return undefined
  return (
    `scripts/oclif-patches.mjs: the string patches to oclif's compiled files (lean start-up path, command ` +
    `sort) were written against @oclif/core ${patchedOclifVersion}, and ${installed} is installed: check ` +
    'each patch against the new text, re-measure it (docs/decisions.md, "Speed machinery kept"), then ' +
    'update patchedOclifVersion and the exact pin in package.json'
  )
}

/**
 * `source` (the text of @oclif/core's `file`) with `patches` applied; throws, naming the patch, when
 * a `before` is not found exactly once.
 */
export function applyPatches(file, source, patches) {
  let patched = source
  for (const { before, after } of patches.filter((candidate) => candidate.file === file)) {
    if (patched.split(before).length !== 2) {
      throw new Error(
        `scripts/oclif-patches.mjs: @oclif/core ${patchedOclifVersion} lib file ${file} should hold ` +
          `\`${before}\` exactly once, and does not: oclif's compiled text changed`,
      )
    }
    patched = patched.replace(before, after)
  }
  if (patched.includes('__lazyModule(')) patched += lazyModuleFunction
  return patched
}

/** The path of a file under @oclif/core (`lib/command.js`), or undefined for another file. */
export function oclifFile(path) {
  const match = /[\\/]@oclif[\\/]core[\\/](lib[\\/].*\.js)$/.exec(path)
  return match?.[1].replaceAll('\\', '/')
}
