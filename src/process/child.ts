/**
 * Runs the child of `vault run`: stdio inherited, an explicit environment, signals forwarded the way
 * a terminal user expects, and the child's exit status turned into the CLI's exit code.
 *
 * When stdin is a terminal, the terminal itself delivers SIGINT, SIGQUIT and SIGWINCH to the whole
 * foreground process group, child included: forwarding them again would deliver them twice (the
 * classic double Ctrl-C to compose), so the CLI only stays alive for them. Otherwise every signal a
 * supervisor sends to the CLI is forwarded to the child, once.
 */
import { constants } from 'node:os'
import type { MaskedStreams } from '../masking/masked-stdio.js'

export interface RunChildOptions {
  env: Record<string, string>
  cwd?: string
  /** Whether the CLI runs in a terminal's foreground (default: stdin is a TTY). */
  interactive?: boolean
  /** The child's streams whose output is masked, and the values to mask (src/masking/masked-stdio.ts). */
  masked?: MaskedStreams
  /** When aborted, the child gets SIGTERM (SIGKILL 10 s later) and the run resolves once it exits. */
  stop?: AbortSignal
}

/** Signals a terminal sends to the whole foreground process group. */
const terminalGroupSignals: NodeJS.Signals[] = ['SIGINT', 'SIGQUIT', 'SIGWINCH']
/** Signals always forwarded (a supervisor sends them to the CLI's pid only). */
const forwardedSignals: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGUSR1', 'SIGUSR2']

/** The exit code for a status: the code itself, or 128 + N for signal N. */
export function exitCodeForStatus(exitCode: number | undefined, signal: string | undefined): number {
  if (signal) {
    const number = constants.signals[signal as keyof typeof constants.signals]
    return number === undefined ? 1 : 128 + number
  }
  return exitCode ?? 1
}

/** How a child ended: its exit code or signal, or the error that kept it from starting. */
type ChildEnd = { code: number | null; signal: NodeJS.Signals | null } | { error: NodeJS.ErrnoException }

/** The exit code for a child that could not start: 127 not found, 126 not executable, as a shell. */
function spawnFailureCode(error: NodeJS.ErrnoException): number {
  if (error.code === 'ENOENT') return 127
  if (error.code === 'EACCES') return 126
  return 1
}

/**
 * Runs `command` with `args` and resolves with the exit code the CLI should end with. Spawned with
 * node:child_process, not execa: this is on the path of every `vault run`, and loading execa costs
 * much of its start-up (figures: docs/decisions.md, "execa → node:child_process").
 */
export async function runChild(command: string, args: string[], options: RunChildOptions): Promise<number> {
  const { spawn } = await import('node:child_process')
  const interactive = options.interactive ?? Boolean(process.stdin.isTTY)
  const masked = options.masked
    ? await (await import('../masking/masked-stdio.js')).prepareMaskedStdio(options.masked)
    : undefined
  const child = spawn(command, args, {
    env: options.env,
    cwd: options.cwd,
    stdio: ['inherit', masked?.stdout ?? 'inherit', masked?.stderr ?? 'inherit'],
  })
  const copies = masked?.start(child)
  const ended = new Promise<ChildEnd>((resolve) => {
    child.once('error', (error) => resolve({ error }))
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  const kill = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
  const listeners = new Map<NodeJS.Signals, () => void>()
  for (const signal of [...terminalGroupSignals, ...forwardedSignals]) {
    const forward = !interactive || forwardedSignals.includes(signal)
    const listener = forward ? () => kill(signal) : () => undefined
    listeners.set(signal, listener)
    process.on(signal, listener)
  }
  const stopChild = () => {
    kill('SIGTERM')
    setTimeout(() => kill('SIGKILL'), 10_000).unref()
  }
  options.stop?.addEventListener('abort', stopChild, { once: true })
  try {
    const end = await ended
    if ('error' in end) return spawnFailureCode(end.error)
    await copies?.settle()
    return exitCodeForStatus(end.code ?? undefined, end.signal ?? undefined)
  } finally {
    for (const [signal, listener] of listeners) process.off(signal, listener)
    options.stop?.removeEventListener('abort', stopChild)
  }
}

/**
 * Runs a shell command line (`sh -c`, as `vault inject --exec` does) with the host's environment
 * without vault's own credentials (the client secret, tokens); resolves with its exit code.
 */
export async function runShellCommand(commandLine: string): Promise<number> {
  const { buildChildEnvironment } = await import('./child-env.js')
  return runChild('sh', ['-c', commandLine], { env: buildChildEnvironment(process.env, {}) })
}
