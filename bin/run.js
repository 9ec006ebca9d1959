#!/usr/bin/env -S node --
// `node --` (here and wherever vault starts Node again): Node reads every `--env-file` it finds in its
// command line, the script's own arguments included, until a `--` (nodejs/node#54232), and applies the
// NODE_OPTIONS such a file sets: `vault render --env-file .env` ran `--require` code from the project's
// .env and took its variables into vault's own environment before any of this file ran.
// The vault CLI. `vault proxy serve` replaces this process with the lean proxy (no oclif loaded);
// `vault restore` replaces it with itself under the restore's V8 flags (src/backup/restore-launch.ts).
// Under a Node older than 24 it hands over to the Node 24 that `make setup` installs into
// .tools/ (forwarding signals and the exit code), or says what to do when there is none.
// No static import of a builtin: each one builds an ES-module facade over all its exports (for
// node:fs that loads its lazy stream classes), several ms of every command's start-up. Node 24 hands
// builtins out through process.getBuiltinModule; older ones, which only hand over, import them.
const builtin = async (name) => process.getBuiltinModule?.(name) ?? (await import(name))
const { fileURLToPath } = await builtin('node:url')

const major = Number(process.versions.node.split('.')[0])
const bootstrapped = fileURLToPath(new URL('../.tools/node_modules/.bin/node', import.meta.url))

const argv = process.argv.slice(2)
/** `vault proxy serve` (not its --help) becomes the lean serving process itself, without oclif. */
const servesProxy =
  argv[0] === 'proxy' && argv[1] === 'serve' && !argv.some((arg) => arg === '--help' || arg === '-h')

/** `vault restore` (not its --help) re-runs itself under the restore's V8 flags (restore-launch.ts). */
const restores = argv[0] === 'restore' && !argv.some((arg) => arg === '--help' || arg === '-h')

if (major >= 24 && restores) {
  const { relaunchForRestore } = await import('../dist/backup/restore-launch.js')
  relaunchForRestore(fileURLToPath(import.meta.url), argv)
}

if (major >= 24 && servesProxy) {
  const { serveProxyInPlace } = await import('../dist/proxy/launch.js')
  await serveProxyInPlace(argv.slice(2))
} else if (major >= 24) {
  const { enableCompileCache } = await builtin('node:module')
  enableCompileCache?.()
  import('../dist/cli/main.js').then(({ runCli }) => runCli(import.meta.url))
} else if ((await builtin('node:fs')).existsSync(bootstrapped)) {
  const { spawn } = await import('node:child_process')
  const { constants } = await import('node:os')
  const child = spawn(bootstrapped, ['--', fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']) {
    process.on(signal, () => {
      if (signal === 'SIGINT' && process.stdin.isTTY) return
      child.kill(signal)
    })
  }
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (constants.signals[signal] ?? 0))
  })
} else {
  process.stderr.write(`Error: vault needs Node 24 or newer; this is Node ${process.versions.node}\n`)
  process.stderr.write('Hint: run `make setup` in the vault checkout to install Node 24 into .tools/\n')
  process.exit(3)
}
