/**
 * The integration tests' `docker-compose`: Debian's v1 client (1.29, Python) run from fork servers
 * (compose-forkserver.py) instead of a fresh interpreter per call. Each server imports the real client
 * once, through /usr/bin/docker-compose's own entry script, and answers a call from a forked child that
 * becomes the caller's docker-compose (its fds, working directory, umask, signals, arguments and whole
 * environment) and runs the client's own `main()`: the same package, the same interpreter, only
 * pre-imported. A shim named `docker-compose` (compose-forkserver-shim.py) in a private directory is
 * put first on the integration workers' PATH (compose-shim-path.ts); vault's own `vault run --
 * docker-compose ...`, rotate and restore find it there as the tests' direct calls do.
 *
 * The interpreter's start-up reads the locale and PYTHON* variables: one server per set of them the
 * tests use (vitest's environment, runCli's `LANG=C.UTF-8`, none); a call with another set, or whose
 * HOME has a user site-packages directory, runs /usr/bin/docker-compose itself (counted at teardown).
 * Before any test, `version` and `config` of a fixture through the shim must print exactly what
 * /usr/bin/docker-compose prints, under every server, or the run fails. VAULT_TEST_COMPOSE_FORKSERVER=0
 * leaves the real binary on PATH.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

export const realComposeV1 = '/usr/bin/docker-compose'
const systemPython = '/usr/bin/python3'
const serverScript = fileURLToPath(new URL('./compose-forkserver.py', import.meta.url))
const shimTemplate = fileURLToPath(new URL('./compose-forkserver-shim.py', import.meta.url))
const checkFixture = fileURLToPath(new URL('../fixtures/compose/fields-everywhere/', import.meta.url))

export interface ComposeForkserver {
  /** The directory holding the `docker-compose` shim, to put first on PATH. */
  shimDir: string
  /** The servers' pids (their CPU includes their reaped compose children). */
  pids: number[]
  stop(): Promise<string>
}

type StartupVariables = Record<string, string>

/** Why the fork server is not used in this run, or undefined when it is. */
export function forkserverUnusedReason(): string | undefined {
  if (process.env.VAULT_TEST_COMPOSE_FORKSERVER === '0') return 'VAULT_TEST_COMPOSE_FORKSERVER=0'
  if (!existsSync(realComposeV1)) return `${realComposeV1} is missing`
  return undefined
}

/** The variables of `environment` that the interpreter's start-up reads, as the shim selects them. */
export function startupVariables(environment: Record<string, string | undefined>): StartupVariables {
  const names = Object.keys(environment)
    .filter((name) => ['LANG', 'LC_ALL', 'LC_CTYPE'].includes(name) || name.startsWith('PYTHON'))
    .filter((name) => environment[name] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(names.map((name) => [name, environment[name]!]))
}

const keyOf = (variables: StartupVariables) =>
  Object.entries(variables)
    .map(([name, value]) => `${name}=${value}`)
    .join('\n')

/** The start-up variables of the calls the tests make: vitest's environment, runCli's, a bare PATH. */
export function usualStartupVariables(): StartupVariables[] {
  const sets = [startupVariables(process.env), { LANG: 'C.UTF-8' }, {}]
  return [...new Map(sets.map((set) => [keyOf(set), set])).values()]
}

export interface ForkserverOptions {
  /** One server per set of start-up variables (default: usualStartupVariables()). */
  sets?: StartupVariables[]
  /** The entry script the servers load and a cold call runs (default /usr/bin/docker-compose; another in the helper's test). */
  entryScript?: string
  /** The program the shim's output is checked against before use (default: the entry script). */
  checkAgainst?: string
  /** A private directory for the sockets, the shim and the log of cold calls (made here by default). */
  directory?: string
}

/** Starts one server per set of start-up variables, writes the shim and checks it against the real client. */
export async function startComposeForkserver(options: ForkserverOptions = {}): Promise<ComposeForkserver> {
  const sets = options.sets ?? usualStartupVariables()
  const entryScript = options.entryScript ?? realComposeV1
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'vault-compose-forkserver-'))
  chmodSync(directory, 0o700)
  const home = join(directory, 'home')
  mkdirSync(home, { mode: 0o700 })
  const coldLog = join(directory, 'cold.log')
  const servers: Server[] = []
  const stop = async () => {
    const cpu = servers.reduce((sum, { process }) => sum + processCpuSeconds(process.pid), 0)
    for (const { process } of servers) process.kill('SIGTERM')
    const calls = (await Promise.all(servers.map(({ exited }) => exited))).reduce(
      (sum, output) => sum + Number(/calls (\d+)/.exec(output)?.[1] ?? 0),
      0,
    )
    const cold = existsSync(coldLog) ? readFileSync(coldLog, 'utf8').split('\n').filter(Boolean) : []
    rmSync(directory, { recursive: true, force: true })
    const reasons = [...new Set(cold)].slice(0, 3).join('; ')
    return `compose fork servers: ${calls} calls forked, ${cold.length} ran ${entryScript}${reasons ? ` (${reasons})` : ''}, cpu ${cpu.toFixed(1)} s (servers and their compose children)`
  }
  try {
    const userSites = await Promise.all(
      sets.map((set, index) =>
        startServer(
          { socket: join(directory, `${index}.sock`), entryScript, environment: { ...set, HOME: home } },
          servers,
        ),
      ),
    )
    const shimDir = join(directory, 'bin')
    mkdirSync(shimDir, { mode: 0o700 })
    const table = Object.fromEntries(sets.map((set, index) => [keyOf(set), join(directory, `${index}.sock`)]))
    const shim = readFileSync(shimTemplate, 'utf8')
      .replace(/^SERVERS = \{\}/m, `SERVERS = ${JSON.stringify(table)}`)
      .replace(/^USER_SITE = ''/m, `USER_SITE = ${JSON.stringify(userSites[0])}`)
      .replace(/^COLD_LOG = ''/m, `COLD_LOG = ${JSON.stringify(coldLog)}`)
      .replace(/^REAL = '[^']*'/m, `REAL = ${JSON.stringify(entryScript)}`)
    writeFileSync(join(shimDir, 'docker-compose'), shim, { mode: 0o700 })
    await checkAgainstRealClient(
      join(shimDir, 'docker-compose'),
      options.checkAgainst ?? entryScript,
      sets,
      coldLog,
    )
    return { shimDir, pids: servers.map(({ process }) => process.pid ?? -1), stop }
  } catch (error) {
    await stop()
    throw error
  }
}

interface Server {
  process: ChildProcess
  /** Resolves with what the server printed when it exited. */
  exited: Promise<string>
}

/** Starts one server; resolves with the user site-packages path below a user base that it printed. */
function startServer(
  {
    socket,
    entryScript,
    environment,
  }: { socket: string; entryScript: string; environment: Record<string, string> },
  servers: Server[],
): Promise<string> {
  const server = spawn(systemPython, [serverScript, socket, entryScript], {
    env: { PATH: process.env.PATH, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let errors = ''
  server.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  const exited = new Promise<string>((resolve) => server.on('exit', () => resolve(output)))
  servers.push({ process: server, exited })
  return new Promise((resolve, reject) => {
    createInterface({ input: server.stdout! }).on('line', (line) => {
      output += `${line}\n`
      if (line.startsWith('ready ')) resolve(line.slice('ready '.length))
    })
    void exited.then(() => reject(new Error(`compose fork server exited before it listened: ${errors}`)))
  })
}

interface Outcome {
  status: number | null
  signal: string | null
  stdout: string
  stderr: string
}

function run(program: string, args: string[], env: Record<string, string>, cwd: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(program, args, { env, cwd, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ status: child.exitCode, signal: child.signalCode, stdout, stderr }),
    )
  })
}

/** `version` and `config` of a fixture, under every set of start-up variables: the shim must print what the real client prints. */
async function checkAgainstRealClient(
  shim: string,
  realProgram: string,
  sets: StartupVariables[],
  coldLog: string,
): Promise<void> {
  const fixtureEnv = JSON.parse(readFileSync(join(checkFixture, 'case.json'), 'utf8')) as {
    env: Record<string, string>
  }
  const calls = sets.flatMap((set) => [
    { args: ['version'], env: { PATH: process.env.PATH!, ...set } },
    { args: ['config'], env: { PATH: process.env.PATH!, ...set, ...fixtureEnv.env } },
  ])
  const outcomes = await Promise.all(
    calls.map(async ({ args, env }) => {
      const [real, shimmed] = await Promise.all([
        run(realProgram, args, env, checkFixture),
        run(shim, args, env, checkFixture),
      ])
      return { args, env, real, shimmed }
    }),
  )
  const differing = outcomes.filter(({ real, shimmed }) => JSON.stringify(real) !== JSON.stringify(shimmed))
  if (differing.length > 0 || existsSync(coldLog)) {
    const text = differing
      .map(
        ({ args, env, real, shimmed }) =>
          `docker-compose ${args.join(' ')} with ${JSON.stringify(env)}:\n  real:  ${JSON.stringify(real)}\n  shim:  ${JSON.stringify(shimmed)}`,
      )
      .join('\n')
    const cold = existsSync(coldLog)
      ? `\ncalls that did not reach a server: ${readFileSync(coldLog, 'utf8')}`
      : ''
    throw new Error(
      `the docker-compose shim does not print what ${realProgram} prints (VAULT_TEST_COMPOSE_FORKSERVER=0 runs the real binary):\n${text}${cold}`,
    )
  }
}

/** utime + stime + cutime + cstime of a process, in seconds (0 when it is gone). */
export function processCpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0) / 100
  } catch {
    return 0
  }
}
