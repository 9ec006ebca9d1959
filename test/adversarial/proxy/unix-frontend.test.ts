/**
 * `vault proxy serve` on a unix frontend path that something else holds (socket-path.ts, config.ts).
 * Before, start-up removed any socket file at the path: given the engine's own socket as its frontend,
 * the proxy unlinked it, listened there, relayed to itself, and on stopping left no socket at all, so the
 * engine's clients could not reach it until the engine restarted; a second proxy took the first one's
 * socket the same way. Each case runs the built CLI as a user does (flags or PROXY_* variables), with the
 * holder in a process of its own, and checks what is left afterwards: the same file (inode), still
 * answering its own process's greeting.
 * And the socket's mode: under a umask of 000 the file was bound 0777 and chmod-ed to its mode a moment
 * later, and a local client that connected in that moment kept its connection. strace records the umask
 * in force when the frontend is bound.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runCli, runJs } from '../../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'socket-takeover-'))
const children: ChildProcess[] = []

/** Process groups (negative ids) started detached. */
const groups: number[] = []

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const group of groups.splice(0)) {
    try {
      process.kill(group, 'SIGKILL')
    } catch {
      /* already gone */
    }
  }
})

/** A process of its own listening on `path`; every connection gets `greeting`. */
async function holder(path: string, greeting: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('net').createServer((s) => { s.on('error', () => {}); s.end(${JSON.stringify(greeting)}) })` +
        `.listen(${JSON.stringify(path)}, () => console.log('ready'))`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  children.push(child)
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
  return child
}

/** What a connection to the unix socket `path` reads until the other side ends it. */
function greetingAt(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    net
      .connect({ path })
      .on('data', (chunk) => (text += chunk))
      .on('end', () => resolve(text))
      .on('error', reject)
  })
}

/** A fake engine (HTTP on a unix socket) answering /_ping with `OK`. */
async function fakeEngine(path: string): Promise<http.Server> {
  const server = http.createServer((_req, res) => res.end('OK'))
  await new Promise<void>((resolve) => server.listen(path, resolve))
  return server
}

function pingThrough(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath: path, path: '/v1.41/_ping' }, (res) => {
        let body = ''
        res.on('data', (chunk) => (body += chunk)).on('end', () => resolve(`${res.statusCode} ${body}`))
      })
      .on('error', reject)
  })
}

/** `vault proxy serve` in the background, settings from PROXY_* variables; resolves once it listens. */
async function serveInBackground(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--', runJs, 'proxy', 'serve'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    let log = ''
    child.stderr!.on('data', (chunk) => {
      log += chunk
      if (log.includes('msg=listening')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`proxy exited ${code}: ${log}`)))
  })
  return child
}

const engineSocket = join(dir, 'engine.sock')
let engine: http.Server

beforeAll(async () => {
  engine = await fakeEngine(engineSocket)
})

afterAll(() => engine.close())

describe('vault proxy serve never takes a unix socket that a process still accepts on', () => {
  it('refuses the engine socket as its own frontend, by flags and by PROXY_* variables, and leaves it', async () => {
    const inode = lstatSync(engineSocket).ino
    const byFlags = await runCli([
      'proxy',
      'serve',
      '--backend-addr',
      `unix://${engineSocket}`,
      '--frontend-addr',
      `unix://${engineSocket}`,
    ])
    const byVariables = await runCli(['proxy', 'serve'], {
      env: {
        PROXY_BACKEND_ADDR: `unix://${engineSocket}`,
        PROXY_FRONTEND_ADDR: `unix://${dir}//./engine.sock`,
      },
    })
    for (const result of [byFlags, byVariables]) {
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toContain("is the engine's socket")
    }
    expect(lstatSync(engineSocket).ino).toBe(inode)
    expect(await pingThrough(engineSocket)).toBe('200 OK')
  })

  it('refuses a socket another process listens on, and that process keeps it', async () => {
    const held = join(dir, 'held.sock')
    await holder(held, 'still mine\n')
    const inode = lstatSync(held).ino
    const result = await runCli(['proxy', 'serve'], {
      env: { PROXY_BACKEND_ADDR: `unix://${engineSocket}`, PROXY_FRONTEND_ADDR: `unix://${held}` },
    })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain(`PROXY_FRONTEND_ADDR "unix://${held}" is in use`)
    expect(lstatSync(held).ino).toBe(inode)
    expect(await greetingAt(held)).toBe('still mine\n')
  })

  it('a second proxy on the first one’s socket is refused; the first goes on serving there', async () => {
    const front = join(dir, 'front.sock')
    const env = { PROXY_BACKEND_ADDR: `unix://${engineSocket}`, PROXY_FRONTEND_ADDR: `unix://${front}` }
    await serveInBackground(env)
    const inode = lstatSync(front).ino
    const second = await runCli(['proxy', 'serve'], {
      env: { ...env, PROXY_RULES: 'GET,POST,DELETE .*' },
    })
    expect(second.exitCode).toBe(2)
    expect(second.stderr).toContain('is in use')
    expect(lstatSync(front).ino).toBe(inode)
    expect(await pingThrough(front)).toBe('200 OK')
  })

  it('replaces a socket whose process has gone, and serves there', async () => {
    const stale = join(dir, 'stale.sock')
    const gone = await holder(stale, 'gone\n')
    gone.kill('SIGKILL')
    await new Promise((resolve) => gone.once('exit', resolve))
    expect(lstatSync(stale).isSocket()).toBe(true)
    await serveInBackground({
      PROXY_BACKEND_ADDR: `unix://${engineSocket}`,
      PROXY_FRONTEND_ADDR: `unix://${stale}`,
    })
    expect(await pingThrough(stale)).toBe('200 OK')
  })

  it.each([
    ['a regular file', (path: string) => writeFileSync(path, 'keep me')],
    ['a directory', (path: string) => mkdirSync(path)],
    ['a symbolic link to a live socket', (path: string) => symlinkSync(engineSocket, path)],
  ])('leaves %s at the path where it is', async (_name, make) => {
    const path = join(dir, `thing-${Math.random().toString(36).slice(2)}.sock`)
    make(path)
    const before = lstatSync(path)
    const result = await runCli(['proxy', 'serve'], {
      env: { PROXY_BACKEND_ADDR: `unix://${engineSocket}`, PROXY_FRONTEND_ADDR: `unix://${path}` },
    })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('something that is not a socket is there')
    const after = lstatSync(path)
    expect([after.ino, after.mode]).toEqual([before.ino, before.mode])
    if (before.isFile()) expect(readFileSync(path, 'utf8')).toBe('keep me')
    expect(await pingThrough(engineSocket)).toBe('200 OK')
  })
})

const strace = spawnSync('strace', ['-V']).status === 0
if (!strace && process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1')
  throw new Error('VAULT_TEST_REQUIRE_COMPONENTS=1 and strace is not installed (.ci/run installs it)')

describe.skipIf(!strace)(
  `the unix frontend's mode (strace ${strace ? 'available' : 'is not installed'})`,
  () => {
    it.each(['0660', '0600'])(
      'binds the socket with mode %s under a umask of 000, never wider before the chmod',
      async (mode) => {
        const path = join(dir, `mode-${mode}.sock`)
        const trace = join(dir, `mode-${mode}.trace`)
        const child = spawn(
          'sh',
          [
            '-c',
            'umask 000; exec strace -f -qq -e trace=umask,bind -o "$0" "$@"',
            trace,
            process.execPath,
            '--',
            runJs,
            'proxy',
            'serve',
          ],
          {
            env: {
              PATH: process.env.PATH,
              PROXY_BACKEND_ADDR: `unix://${engineSocket}`,
              PROXY_FRONTEND_ADDR: `unix://${path}?mode=${mode}`,
            },
            stdio: 'ignore',
            // a process group of its own: strace passes no signal on, so the proxy is signalled too
            detached: true,
          },
        )
        const group = -child.pid!
        groups.push(group)
        for (let i = 0; i < 200 && !existsSync(path); i++)
          await new Promise((resolve) => setTimeout(resolve, 50))
        expect(await pingThrough(path)).toBe('200 OK')
        const exited = new Promise((resolve) => child.once('exit', resolve))
        process.kill(group, 'SIGTERM')
        await exited
        expect(lstatSync(path, { throwIfNoEntry: false })).toBeUndefined()
        let umask = 0
        let boundWith: number | undefined
        for (const line of readFileSync(trace, 'utf8').split('\n')) {
          const set = /umask\((0[0-7]*)\)/.exec(line)
          if (set) umask = parseInt(set[1]!, 8)
          if (line.includes('bind(') && line.includes(JSON.stringify(path))) boundWith = 0o777 & ~umask
        }
        expect(boundWith?.toString(8)).toBe(mode.slice(1))
      },
    )
  },
)
