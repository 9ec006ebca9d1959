/**
 * The lean start-up path of the data commands (`export`, `inject`, `render`, `run`), which scripts and
 * compose wrappers run many times a day: which command lines take it. Each of those commands is
 * bundled with the lean runner (lean-run.ts) into dist/cli/lean/<id>.js (scripts/bundle.mjs), which
 * loads only the code that command needs; oclif's Config, help and plugin loading are never evaluated.
 * The command class, its flags, oclif's parser, the command's error mapping and oclif's exit handling
 * are the same as on the full path. Any command line that could reach something else (help,
 * `--version`, a bare word that could name another command, oclif's DEBUG output) takes the full
 * oclif path. test/e2e/lean-path.test.ts runs a table of command lines through both paths and
 * compares stdout, stderr and the exit code.
 */

/** The commands that may take the lean path. */
export const leanCommandIds: readonly string[] = ['export', 'inject', 'render', 'run']

/**
 * The command id when `argv` can take the lean path: one of the data commands, followed by nothing or
 * by a flag (a bare word could be a topic or another command for oclif), no `--help` before the first
 * `--` (oclif's own help test), and no DEBUG variable (oclif's debug lines come from its Config).
 */
export function leanCommandId(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const [id, next] = argv
  if (id === undefined || !leanCommandIds.includes(id)) return undefined
  if (next !== undefined && !next.startsWith('-')) return undefined
  if (env.DEBUG) return undefined
  const end = argv.indexOf('--')
  if ((end === -1 ? argv : argv.slice(0, end)).includes('--help')) return undefined
  return id
}
