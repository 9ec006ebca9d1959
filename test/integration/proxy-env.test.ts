/**
 * Every PROXY_* variable documented in examples/proxy/README.md, given to the built CLI (`vault proxy
 * serve`, bin/run.js) through the environment alone, as the example stack's compose file does, against a
 * fake engine; each case shows the variable's effect. The walk fails when a documented variable has no
 * case. (The example stack crashed on PROXY_FRONTEND_ADDR from the environment; the tests passed flags.)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import https from 'node:https'
import http from 'node:http'
import net from 'node:net'
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { freePort } from '../harness/ports.js'
import { makeCaSignedCertificates } from '../helpers/certificates.js'
import { runJs } from '../helpers/cli.js'
import { startRecordingEngine, type RecordingEngine } from '../helpers/recording-engine.js'

const dir = mkdtempSync(join(tmpdir(), 'proxy-env-'))
const file = (name: string) => join(dir, name)
const readme = readFileSync(new URL('../../examples/proxy/README.md', import.meta.url), 'utf8')
const documented = [...new Set(readme.match(/PROXY_[A-Z_]+[A-Z]/g))].sort()
let engine: RecordingEngine

const makeCertificates = () => makeCaSignedCertificates(dir, ['server', 'client'])

interface Served {
  child: ChildProcess
  log(): string
  stop(): Promise<number | null>
}

/** `vault proxy serve` with no argument, `env` (and the recording engine) as its only configuration. */
function spawnServe(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [runJs, 'proxy', 'serve'], {
    env: { PATH: process.env.PATH, PROXY_BACKEND_ADDR: `unix://${engine.socketPath}`, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
}

/** spawnServe, resolved once it listens on `listeners` frontends. */
async function serveFromEnv(env: Record<string, string>, listeners = 1): Promise<Served> {
  const child = spawnServe(env)
  let log = ''
  child.stderr!.on('data', (chunk) => (log += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  for (let i = 0; i < 100 && (log.match(/listening/g) ?? []).length < listeners; i++) {
    if (child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  expect(log.match(/listening/g) ?? [], log).toHaveLength(listeners)
  return {
    child,
    log: () => log,
    stop: () => {
      child.kill('SIGTERM')
      return exited
    },
  }
}

function get(
  options: http.RequestOptions & { tls?: https.RequestOptions },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = options.tls ? https.request({ ...options, ...options.tls }) : http.request(options)
    request.on('response', (res) => {
      let body = ''
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    request.on('error', reject)
    request.end()
  })
}

const cases: Record<string, () => Promise<void>> = {}
const listPath = '/v1.41/containers/json'

async function frontendAndLogs(): Promise<void> {
  const port = await freePort()
  const socket = file('proxy.sock')
  const served = await serveFromEnv(
    {
      PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port},unix://${socket}`,
      PROXY_LOG_LEVEL: '7',
      PROXY_LOG_FORMAT: 'json',
    },
    2,
  )
  engine.reset()
  expect((await get({ host: '127.0.0.1', port, path: listPath })).status).toBe(200)
  expect((await get({ socketPath: socket, path: listPath })).status).toBe(200)
  expect(engine.seen).toEqual([`GET ${listPath}`, `GET ${listPath}`])
  await served.stop()
  const requests = served
    .log()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  expect(requests.filter((line) => line.msg === 'request' && line.level === 'debug')).toHaveLength(2)
}
cases.PROXY_BACKEND_ADDR = frontendAndLogs
cases.PROXY_FRONTEND_ADDR = frontendAndLogs
cases.PROXY_LOG_LEVEL = frontendAndLogs
cases.PROXY_LOG_FORMAT = frontendAndLogs

async function decisions(env: Record<string, string>, expected: [string, string, number][]): Promise<void> {
  const port = await freePort()
  const served = await serveFromEnv({ PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`, ...env })
  try {
    for (const [method, path, status] of expected) {
      expect((await get({ host: '127.0.0.1', port, method, path })).status, `${method} ${path}`).toBe(status)
    }
  } finally {
    await served.stop()
  }
}
cases.PROXY_RULES = () =>
  decisions({ PROXY_RULES: 'GET /only\nPOST /v1.41/exec/x/start' }, [
    ['GET', '/only', 200],
    ['POST', '/v1.41/exec/x/start', 200],
    ['GET', listPath, 403],
    ['GET', '/_ping', 200],
  ])
cases.PROXY_CLIENTS = async () => {
  const port = await freePort()
  const served = await serveFromEnv({
    PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
    PROXY_CLIENTS: 'source 127.0.0.2 read-only; source 127.0.0.3 fine-grained',
  })
  try {
    const from = (localAddress: string, method: string, path: string) =>
      get({ host: '127.0.0.1', port, localAddress, method, path })
    expect((await from('127.0.0.2', 'GET', listPath)).status).toBe(200)
    expect((await from('127.0.0.2', 'POST', '/v1.41/containers/web/restart')).status).toBe(403)
    expect((await from('127.0.0.3', 'POST', '/v1.41/containers/web/restart')).status).toBe(200)
    const stranger = await from('127.0.0.1', 'GET', '/_ping')
    expect(stranger.status).toBe(403)
    expect(stranger.body).toContain('no rule set for this client (source 127.0.0.1')
  } finally {
    await served.stop()
  }
}
cases.PROXY_REDACT_ENV = async () => {
  const inspectPath = '/v1.41/containers/web/json'
  for (const [env, masked] of [
    [{ PROXY_RULES: `GET ${inspectPath}`, PROXY_REDACT_ENV: 'on' }, true],
    [{ PROXY_PRESET: 'read-only', PROXY_REDACT_ENV: 'off' }, false],
    [{ PROXY_PRESET: 'read-only' }, true],
  ] as const) {
    const port = await freePort()
    const served = await serveFromEnv({ PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`, ...env })
    try {
      const answer = await get({ host: '127.0.0.1', port, path: inspectPath })
      expect(answer.status).toBe(200)
      // A masked answer is re-serialised by the proxy (a trailing newline); the echo engine has no Env.
      expect(answer.body.endsWith('}\n'), JSON.stringify(env)).toBe(masked)
      expect(served.log().includes('env masked'), JSON.stringify(env)).toBe(masked)
    } finally {
      await served.stop()
    }
  }
}
cases.PROXY_NO_BUILTIN_RULES = () =>
  decisions({ PROXY_RULES: 'GET /only', PROXY_NO_BUILTIN_RULES: '1' }, [
    ['GET', '/only', 200],
    ['GET', '/_ping', 403],
  ])
cases.PROXY_RULES_FILE = () => {
  writeFileSync(file('only.rules'), '# a rules file\nGET /from-file\n')
  return decisions({ PROXY_RULES_FILE: file('only.rules') }, [
    ['GET', '/from-file', 200],
    ['GET', listPath, 403],
  ])
}
cases.PROXY_PRESET = () =>
  decisions({ PROXY_PRESET: 'read-only' }, [
    ['GET', listPath, 200],
    ['POST', '/v1.41/containers/x/restart', 403],
  ])

cases.PROXY_SHUTDOWN_GRACE = async () => {
  const port = await freePort()
  const served = await serveFromEnv({
    PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
    PROXY_SHUTDOWN_GRACE: '0.25',
  })
  expect(await served.stop()).toBe(0)
  expect(served.log()).toContain('msg="shutting down" graceMs=250')
}

cases.PROXY_MAX_CONNECTIONS = async () => {
  const port = await freePort()
  const served = await serveFromEnv({
    PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
    PROXY_MAX_CONNECTIONS: '1',
  })
  const held = net.connect({ port, host: '127.0.0.1' })
  await new Promise((resolve) => held.once('connect', resolve))
  await new Promise((resolve) => setTimeout(resolve, 100))
  const second = await get({ host: '127.0.0.1', port, path: listPath, agent: false })
  held.destroy()
  await served.stop()
  expect(second.status).toBe(503)
  expect(JSON.parse(second.body).message).toContain('too many connections (at most 1)')
}

async function frontendTls(): Promise<void> {
  const port = await freePort()
  const served = await serveFromEnv({
    PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
    PROXY_FRONTEND_TLS_CERT: file('server.pem'),
    PROXY_FRONTEND_TLS_KEY: file('server.key'),
    PROXY_FRONTEND_TLS_CACERT: file('ca.pem'),
  })
  try {
    const ca = readFileSync(file('ca.pem'))
    const withCertificate = {
      ca,
      cert: readFileSync(file('client.pem')),
      key: readFileSync(file('client.key')),
    }
    expect((await get({ host: '127.0.0.1', port, path: listPath, tls: withCertificate })).status).toBe(200)
    await expect(get({ host: '127.0.0.1', port, path: listPath, tls: { ca } })).rejects.toThrow()
  } finally {
    await served.stop()
  }
}
cases.PROXY_FRONTEND_TLS_CERT = frontendTls
cases.PROXY_FRONTEND_TLS_KEY = frontendTls
cases.PROXY_FRONTEND_TLS_CACERT = frontendTls

async function backendTls(): Promise<void> {
  const engineTls = https.createServer(
    {
      cert: readFileSync(file('server.pem')),
      key: readFileSync(file('server.key')),
      ca: readFileSync(file('ca.pem')),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) =>
      res.end(
        JSON.stringify({
          url: req.url,
          peer: (req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN,
        }),
      ),
  )
  await new Promise<void>((resolve) => engineTls.listen(0, '127.0.0.1', resolve))
  const enginePort = (engineTls.address() as net.AddressInfo).port
  const port = await freePort()
  const served = await serveFromEnv({
    PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
    PROXY_BACKEND_ADDR: `tcp://127.0.0.1:${enginePort}`,
    PROXY_BACKEND_TLS_CACERT: file('ca.pem'),
    PROXY_BACKEND_TLS_CERT: file('client.pem'),
    PROXY_BACKEND_TLS_KEY: file('client.key'),
  })
  try {
    const answer = await get({ host: '127.0.0.1', port, path: listPath })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ url: listPath, peer: 'client' })
  } finally {
    await served.stop()
    engineTls.close()
  }
}
cases.PROXY_BACKEND_TLS_CACERT = backendTls
cases.PROXY_BACKEND_TLS_CERT = backendTls
cases.PROXY_BACKEND_TLS_KEY = backendTls

/** A POST with a JSON body (or none) through the proxy at `port`; its status. */
function post(port: number, path: string, body?: object): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: text ? { 'Content-Type': 'application/json' } : {},
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode!))
      },
    )
    request.on('error', reject)
    request.end(text)
  })
}
const guardRules = 'POST,GET %API_PREFIX_CONTAINERS%(/.*)?\nPOST %API_PREFIX_IMAGES%/load'
const privileged = { Image: 'x', HostConfig: { Privileged: true } }
const allowedByFlags = [
  { Image: 'x', HostConfig: { CapAdd: ['NET_ADMIN'] } },
  { Image: 'x', HostConfig: { Binds: ['/srv/app:/app'] } },
]
async function guardFromEnv(): Promise<void> {
  for (const [env, allowed] of [
    [{}, false],
    [{ PROXY_ALLOW_CAP: 'NET_ADMIN', PROXY_ALLOW_BIND_FROM: '/srv', PROXY_ALLOW_IMAGE_LOAD: '1' }, true],
  ] as const) {
    const port = await freePort()
    const served = await serveFromEnv({
      PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
      PROXY_RULES: guardRules,
      ...env,
    })
    try {
      expect(await post(port, '/v1.41/containers/create', privileged)).toBe(403)
      for (const body of allowedByFlags)
        expect(await post(port, '/v1.41/containers/create', body)).toBe(allowed ? 200 : 403)
      expect(await post(port, '/v1.41/images/load')).toBe(allowed ? 200 : 403)
    } finally {
      await served.stop()
    }
    expect(served.log()).toContain('field=HostConfig.Privileged')
  }
  const port = await freePort()
  const off = await serveFromEnv({
    PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
    PROXY_RULES: guardRules,
    PROXY_GUARD: 'off',
  })
  try {
    expect(await post(port, '/v1.41/containers/create', privileged)).toBe(200)
  } finally {
    await off.stop()
  }
  expect(off.log()).toContain('THE HOST-ESCAPE GUARD IS OFF')
}
cases.PROXY_GUARD = guardFromEnv
cases.PROXY_ALLOW_CAP = guardFromEnv
cases.PROXY_ALLOW_BIND_FROM = guardFromEnv
cases.PROXY_ALLOW_IMAGE_LOAD = guardFromEnv

/** Learn mode from PROXY_LEARN: what the rules refuse is forwarded, warned about every interval, and learned. */
async function learnFromEnv(): Promise<void> {
  const port = await freePort()
  const learned = file('learned.rules')
  const served = await serveFromEnv({
    PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
    PROXY_RULES: `GET ${'%API_PREFIX_CONTAINERS%'}/json`,
    PROXY_LEARN: learned,
    PROXY_LEARN_WARN_EVERY: '1',
  })
  engine.reset()
  try {
    expect((await get({ host: '127.0.0.1', port, path: '/v1.41/images/json' })).status).toBe(200)
    expect(engine.seen).toEqual(['GET /v1.41/images/json'])
    // the start warning and a periodic one (1 s, the shortest interval)
    await vi.waitFor(() => expect(served.log().match(/LEARN MODE/g)?.length ?? 0).toBeGreaterThanOrEqual(2), {
      timeout: 10_000,
      interval: 50,
    })
  } finally {
    await served.stop()
  }
  expect(statSync(learned).mode & 0o777).toBe(0o600)
  expect(readFileSync(learned, 'utf8')).toMatch(/^GET %API_PREFIX_IMAGES%\/json$/m)
}
cases.PROXY_LEARN = learnFromEnv
cases.PROXY_LEARN_WARN_EVERY = learnFromEnv

/** A compose file as the policy, from PROXY_COMPOSE_POLICY: its service passes, the same service privileged does not. */
async function composePolicyFromEnv(): Promise<void> {
  const port = await freePort()
  // two files, one in a directory with a blank and a comma, separated as COMPOSE_FILE separates them
  mkdirSync(file('policy stack, v2'), { recursive: true })
  const compose = file('policy stack, v2/compose.yaml')
  const override = file('policy-override.yaml')
  writeFileSync(compose, 'name: envpolicy\nservices:\n  web:\n    image: busybox:latest\n')
  writeFileSync(override, "services:\n  web:\n    ports: ['127.0.0.1:8080:80']\n")
  const served = await serveFromEnv({
    PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
    PROXY_COMPOSE_POLICY: `${compose}:${override}`,
  })
  const web = (hostConfig: object) => ({
    Image: 'busybox:latest',
    Labels: { 'com.docker.compose.project': 'envpolicy', 'com.docker.compose.service': 'web' },
    HostConfig: { NetworkMode: 'envpolicy_default', ...hostConfig },
  })
  engine.reset()
  try {
    expect(await post(port, '/v1.41/containers/create', web({ Privileged: true }))).toBe(403)
    const everyAddress = { PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '8080' }] } }
    expect(await post(port, '/v1.41/containers/create', web(everyAddress))).toBe(403)
    expect(engine.seen).toEqual([])
    const loopback = { PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '8080' }] } }
    expect(await post(port, '/v1.41/containers/create', web(loopback))).toBe(200)
  } finally {
    await served.stop()
  }
  // the refusal is logged with the rule set, the field and the service (quotes escaped in the text format)
  expect(served.log()).toContain('ruleSet=compose-policy field=HostConfig.Privileged')
  expect(served.log()).toMatch(/service \\"web\\" does not declare privileged: true/)
}
cases.PROXY_COMPOSE_POLICY = composePolicyFromEnv

beforeAll(async () => {
  makeCertificates()
  engine = await startRecordingEngine()
})

afterAll(async () => {
  await engine.close()
})

describe('vault proxy serve configured from PROXY_* variables only', () => {
  it('has a case for every variable the README documents', () => {
    expect(Object.keys(cases).sort()).toEqual(documented)
  })

  const distinct = [...new Set(Object.values(cases))]
  it.each(
    distinct.map(
      (run) =>
        [
          Object.keys(cases)
            .filter((name) => cases[name] === run)
            .join(', '),
          run,
        ] as const,
    ),
  )('%s', async (_names, run) => {
    await run()
  })
})

describe('vault proxy serve stopped the moment it says it listens', () => {
  // A supervisor (or a test) that sends SIGTERM as soon as it reads the first 'listening' line: with two
  // frontends the second one is still binding then. The serving process used to install its handlers
  // only once every frontend listened, so this SIGTERM killed it (no exit code, no 'shutting down').
  it('stops gracefully with exit 0, five times in a row', async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort()
      const child = spawnServe({
        PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port},unix://${file(`early-stop-${attempt}.sock`)}`,
        PROXY_SHUTDOWN_GRACE: '0.25',
      })
      let log = ''
      child.stderr!.on('data', (chunk) => {
        log += chunk
        if (log.includes('listening') && !child.killed) child.kill('SIGTERM')
      })
      const exit = await new Promise<[number | null, string | null]>((resolve) =>
        child.on('exit', (code, signal) => resolve([code, signal])),
      )
      expect(exit, log).toEqual([0, null])
      expect(log).toContain('msg="shutting down" graceMs=250')
      expect(log.match(/listening/g), log).toHaveLength(2)
    }
  })
})
