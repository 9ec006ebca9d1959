/**
 * Debian's docker-compose v1 client (1.29, Python) run warm: compose-v1-warm.py imports the client
 * once and answers each call from a forked child running the client's own `main()` with the call's
 * directory, environment and arguments (~0.02 CPU-s a call instead of ~0.3 for a spawn). For the
 * many `docker-compose config` calls of the equivalence tests; a test file that uses it also checks
 * it against the spawned /usr/bin/docker-compose.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import { fileURLToPath } from 'node:url'

/** The interpreter the installed client runs under (its entry script's shebang). */
const systemPython = '/usr/bin/python3'
const warmScript = fileURLToPath(new URL('./compose-v1-warm.py', import.meta.url))

export interface ComposeV1Result {
  status: number
  stdout: string
  stderr: string
}

export class WarmComposeV1 {
  private readonly process: ChildProcessWithoutNullStreams
  private readonly lines: Interface
  private readonly scratch = mkdtempSync(join(tmpdir(), 'vault-compose-v1-'))
  private queue: Promise<unknown> = Promise.resolve()
  private pending: { resolve: (line: string) => void; reject: (error: Error) => void } | undefined
  private stderr = ''

  constructor() {
    this.process = spawn(systemPython, [warmScript], {
      env: { PATH: process.env.PATH },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.process.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()))
    this.lines = createInterface({ input: this.process.stdout })
    this.lines.on('line', (line) => this.pending?.resolve(line))
    this.process.on('exit', (code) =>
      this.pending?.reject(new Error(`compose-v1-warm.py exited (${code}): ${this.stderr}`)),
    )
  }

  /** Runs `docker-compose <args>` in `cwd` with exactly `env`; calls run one at a time. */
  run(cwd: string, args: string[], env: Record<string, string | undefined>): Promise<ComposeV1Result> {
    const result = this.queue.then(() => this.runNow(cwd, args, env))
    this.queue = result.catch(() => undefined)
    return result
  }

  private async runNow(cwd: string, args: string[], env: Record<string, string | undefined>) {
    const out = join(this.scratch, 'stdout')
    const err = join(this.scratch, 'stderr')
    const answer = new Promise<string>((resolve, reject) => (this.pending = { resolve, reject }))
    this.process.stdin.write(`${JSON.stringify({ cwd, env, args, out, err })}\n`)
    const { status } = JSON.parse(await answer) as { status: number }
    this.pending = undefined
    return { status, stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8') }
  }

  close(): void {
    this.process.stdin.end()
    rmSync(this.scratch, { recursive: true, force: true })
  }
}
