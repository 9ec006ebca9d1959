/**
 * The `docker-compose` shim and its fork servers (compose-forkserver.ts), without an engine: a probe
 * entry script (test/fixtures/compose-forkserver/probe-entry.py, the shape of /usr/bin/docker-compose's)
 * reports what it was given, and each call through the shim must give what running the probe itself
 * gives: exit status, stdout and stderr apart, stdin, working directory, arguments, environment (a
 * variable the server lacks, one it has and the call unset), umask, forwarded signals. A SIGKILLed shim
 * leaves no probe behind; calls run at once. With the real client: the check against
 * /usr/bin/docker-compose, and SIGINT while compose waits on a silent engine socket.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ComposeForkserver, realComposeV1, startComposeForkserver } from './compose-forkserver.js'

const probe = fileURLToPath(new URL('../fixtures/compose-forkserver/probe-entry.py', import.meta.url))
const python = '/usr/bin/python3'

interface Outcome {
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

interface Call {
  args: string[]
  env: Record<string, string>
  cwd: string
  stdin?: string
  umask?: string
}

/** Starts `program args` (under `sh -c 'umask U; exec ...'` when a umask is given). */
function start(program: string, { args, env, cwd, stdin, umask }: Call): ChildProcess {
  const child = umask
    ? spawn('/bin/sh', ['-c', `umask ${umask}; exec "$0" "$@"`, program, ...args], { env, cwd })
    : spawn(program, args, { env, cwd })
  child.stdin!.end(stdin ?? '')
  return child
}

function outcome(child: ChildProcess): Promise<Outcome> {
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) =>
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr })),
  )
}

/** The first line a child prints. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      if (text.includes('\n')) resolve(text.split('\n')[0]!)
    })
  })
}

/** Whether a process is gone (or a zombie nobody reaped yet). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z')
  } catch {
    return true
  }
}

async function waitUntil(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe.skipIf(!existsSync(python))('the docker-compose shim, with a probe entry script', () => {
  let forkserver: ComposeForkserver
  let directory: string
  let shim: string
  let work: string

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vault-forkserver-test-'))
    work = mkdtempSync(join(tmpdir(), 'vault-forkserver-cwd-'))
    forkserver = await startComposeForkserver({
      entryScript: probe,
      sets: [{ LANG: 'C.UTF-8' }, {}],
      directory,
    })
    shim = join(forkserver.shimDir, 'docker-compose')
  }, 60_000)

  afterAll(async () => {
    await forkserver?.stop()
    rmSync(work, { recursive: true, force: true })
  })

  /** The same call through the shim and of the probe itself. */
  async function both(call: Call): Promise<[Outcome, Outcome]> {
    return Promise.all([outcome(start(shim, call)), outcome(start(probe, call))])
  }

  it('gives the exit status, stdout and stderr apart, stdin, cwd, arguments, environment and umask as the probe itself gets them', async () => {
    // the servers run with HOME (a private directory): the call has none; ONLY_IN_CALL the servers lack
    const call = {
      args: ['report', '42', 'an argument with spaces', ''],
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', ONLY_IN_CALL: 'a b\tc', EMPTY: '' },
      cwd: work,
      stdin: 'line one\nline two\n',
      umask: '027',
    }
    const [shimmed, direct] = await both(call)
    expect(shimmed).toEqual(direct)
    expect(shimmed.status).toBe(42)
    expect(shimmed.stderr).toBe('to stderr\n')
    const report = JSON.parse(shimmed.stdout) as {
      cwd: string
      argv: string[]
      env: Record<string, string>
      umask: number
      stdin: string
    }
    expect(report).toEqual({
      cwd: work,
      argv: [probe, 'report', '42', 'an argument with spaces', ''],
      env: { ...call.env, PWD: work }, // PWD: from the `sh -c 'umask 027; exec ...'` that sets the umask
      umask: 0o027,
      stdin: 'line one\nline two\n',
    })
  })

  it('answers a call without locale variables from the server started without them (the interpreter adds LC_CTYPE=C.UTF-8 to both)', async () => {
    const [shimmed, direct] = await both({ args: ['report', '0'], env: { PATH: '/usr/bin:/bin' }, cwd: work })
    expect(shimmed).toEqual(direct)
    expect((JSON.parse(shimmed.stdout) as { env: object }).env).toEqual({
      PATH: '/usr/bin:/bin',
      LC_CTYPE: 'C.UTF-8',
    })
  })

  it('runs the entry script itself for start-up variables no server has, and logs it', async () => {
    const [shimmed, direct] = await both({
      args: ['report', '3'],
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONHASHSEED: '7' },
      cwd: work,
    })
    expect(shimmed).toEqual(direct)
    expect(readFileSync(join(directory, 'cold.log'), 'utf8')).toContain('PYTHONHASHSEED=7')
  })

  it.each([
    ['SIGHUP', 'the probe exits 7'],
    ['SIGTERM', 'the probe says so on stderr and dies by it'],
    ['SIGINT', 'KeyboardInterrupt: a traceback from the entry script, then death by SIGINT'],
  ] as const)('forwards %s to the compose child (%s), as the probe itself ends', async (signal, _what) => {
    const call = { args: ['wait'], env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' }, cwd: work }
    const ends: Outcome[] = []
    for (const program of [shim, probe]) {
      const child = start(program, call)
      const ended = outcome(child)
      const [, grandchild] = (await firstLine(child)).split(' ').map(Number)
      child.kill(signal)
      const end = await ended
      process.kill(grandchild!, 'SIGKILL') // the sleep the probe started outlives it, there as here
      // the line of main() a SIGINT interrupts is the probe's race with the signal: not compared
      const stderr = end.stderr.replace(
        /, line \d+, in main\n[\s\S]*KeyboardInterrupt/,
        ', in main ... KeyboardInterrupt',
      )
      ends.push({ ...end, stdout: end.stdout.replace(/^\d+ \d+\n/, ''), stderr })
    }
    expect(ends[0]).toEqual(ends[1])
    if (signal === 'SIGHUP') expect(ends[0]!.status).toBe(7)
    else expect(ends[0]!.signal).toBe(signal)
    if (signal === 'SIGTERM') expect(ends[0]!.stderr).toBe('got SIGTERM\n')
  })

  it('leaves no compose child (nor what it started) behind when the shim is SIGKILLed', async () => {
    const child = start(shim, { args: ['wait'], env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' }, cwd: work })
    const ended = outcome(child)
    const [composeChild, grandchild] = (await firstLine(child)).split(' ').map(Number)
    expect(gone(composeChild!)).toBe(false)
    child.kill('SIGKILL')
    expect((await ended).signal).toBe('SIGKILL')
    await waitUntil(
      () => gone(composeChild!) && gone(grandchild!),
      'the compose child and its sleep are gone',
    )
  })

  it('answers calls made at once, each with its own cwd, environment, stdin and status', async () => {
    const dirs = Array.from({ length: 12 }, () => mkdtempSync(join(work, 'call-')))
    const results = await Promise.all(
      dirs.map((cwd, index) =>
        outcome(
          start(shim, {
            args: ['report', String(index)],
            env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', CALL: String(index) },
            cwd,
            stdin: `stdin of ${index}`,
          }),
        ),
      ),
    )
    results.forEach((result, index) => {
      expect(result.status).toBe(index)
      const report = JSON.parse(result.stdout) as { cwd: string; env: Record<string, string>; stdin: string }
      expect([report.cwd, report.env.CALL, report.stdin]).toEqual([
        dirs[index],
        String(index),
        `stdin of ${index}`,
      ])
    })
  })

  it('refuses to start when the shim does not print what the program it is checked against prints', async () => {
    await expect(
      startComposeForkserver({ entryScript: probe, checkAgainst: '/bin/true', sets: [{ LANG: 'C.UTF-8' }] }),
    ).rejects.toThrow(/does not print what \/bin\/true prints/)
  }, 60_000)
})

describe.skipIf(!existsSync(realComposeV1))(
  'the docker-compose shim, with the real client (no engine)',
  () => {
    let forkserver: ComposeForkserver
    let engine: Server
    let work: string

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'vault-forkserver-real-'))
      // an engine socket that accepts and never answers: compose waits on it
      engine = createServer(() => undefined)
      await new Promise<void>((resolve) => engine.listen(join(work, 'docker.sock'), resolve))
      // the check of startComposeForkserver: `version` and `config` print what /usr/bin/docker-compose prints
      forkserver = await startComposeForkserver({ sets: [{ LANG: 'C.UTF-8' }] })
    }, 90_000)

    afterAll(async () => {
      await forkserver?.stop()
      engine?.close()
      rmSync(work, { recursive: true, force: true })
    })

    it('ends a `ps` waiting on the engine on SIGINT as the real client does', async () => {
      const ends: Outcome[] = []
      for (const program of [join(forkserver.shimDir, 'docker-compose'), realComposeV1]) {
        const connected = new Promise((resolve) => engine.once('connection', resolve))
        const child = start(program, {
          args: ['-p', 'silent', '-f', '-', 'ps'],
          env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', DOCKER_HOST: `unix://${join(work, 'docker.sock')}` },
          cwd: work,
          stdin: 'services:\n  one:\n    image: busybox\nversion: "3.9"\n',
        })
        const ended = outcome(child)
        await connected
        child.kill('SIGINT')
        ends.push(await ended)
      }
      expect(ends[0]).toEqual(ends[1])
    }, 60_000)
  },
)
