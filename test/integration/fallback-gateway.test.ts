/**
 * `--fallback` with the vault behind a reverse proxy: a real vault server behind a tiny real gateway
 * (node:http on 127.0.0.1) that forwards to it and, once the vault is stopped, answers 502, 503 or
 * 504 in its own words (nginx's HTML page, HAProxy's text, an empty body), as gateways do. Such an
 * answer means the vault is unreachable: `run`, `export`, `render` and `inject` use the offline copy
 * after one attempt, with the warning giving its age, where a run without --fallback still retries.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { runVault } from '../helpers/run-vault.js'
import { startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const canary = 'CANARY-gateway-9c41d2'
const printCanary = ['--', 'sh', '-c', 'printf %s "$GW_CANARY"']

/** What real gateways answer when their upstream is down. */
const gatewayAnswers: Record<number, { type: string; body: string }> = {
  502: {
    type: 'text/html',
    body: '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.27.3</center>\r\n</body>\r\n</html>\r\n',
  },
  503: {
    type: 'text/html',
    body: '<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n',
  },
  504: { type: 'text/plain', body: '' },
}

interface Gateway {
  url: string
  /** The status answered when the upstream cannot be reached. */
  failWith: number
  close(): Promise<void>
}

/** A reverse proxy to `upstream` that answers `failWith` in its own words when the upstream is down. */
async function startGateway(upstream: string): Promise<Gateway> {
  const target = new URL(upstream)
  const gateway: Partial<Gateway> & { failWith: number } = { failWith: 502 }
  const server: Server = createServer((incoming, response) => {
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      },
    )
    forwarded.on('error', () => {
      const { type, body } = gatewayAnswers[gateway.failWith]!
      response.writeHead(gateway.failWith, { 'content-type': type, server: 'nginx/1.27.3' })
      response.end(body)
    })
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  gateway.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  gateway.close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return gateway as Gateway
}

describe('--fallback behind a gateway whose vault is down', () => {
  let vault: DeliveryVault
  let gateway: Gateway
  let stack: string
  let env: Record<string, string>

  const timed = async (args: string[]) => {
    const started = performance.now()
    // vault run spawned (its child prints the value), the others in this process; DEBUG=vault's lines
    // are written by the HTTP client, which reads DEBUG when a command builds it (src/client/http.ts)
    const result = await runVault(args, { env: { ...env, DEBUG: 'vault' }, cwd: stack, timeout: 60_000 })
    const attempts = result.stderr.match(/^vault:http [A-Z]+ \S+ -> 50[234] /gm) ?? []
    return { result, attempts: attempts.length, ms: performance.now() - started }
  }

  beforeAll(async () => {
    vault = await startDeliveryVault('sqlite', { GW_CANARY: canary })
    gateway = await startGateway(vault.server.url)
    env = { ...vault.env, VAULT_DOMAIN: gateway.url }
    stack = mkdtempSync(join(vault.home.dir, 'stack-'))
    writeFileSync(
      join(stack, 'compose.yaml'),
      'services:\n  app:\n    image: x\n    environment:\n      P: ${GW_CANARY}\n',
    )
    writeFileSync(join(stack, 'app.tmpl'), 'token=${GW_CANARY}\n')
    // the fresh copy, fetched through the gateway while the vault behind it is up
    const fetched = await runCli(['run', '--env', 'dev', '--fallback', '--no-mask', ...printCanary], {
      env,
      cwd: stack,
    })
    expect(fetched.exitCode, fetched.stderr).toBe(0)
    expect(fetched.stdout).toBe(canary)
    await vault.server.stop()
  })
  afterAll(async () => {
    await gateway?.close()
    vault?.home.cleanup()
  })

  it.each([502, 503, 504])(
    'a gateway answering %i: one attempt, then the copy with its age, promptly',
    async (status) => {
      gateway.failWith = status
      const fallback = await timed(['run', '--env', 'dev', '--fallback', '--no-mask', ...printCanary])
      const plain = await timed(['run', '--env', 'dev', '--no-mask', ...printCanary])
      expect(fallback.result.exitCode, fallback.result.stderr).toBe(0)
      expect(fallback.result.stdout).toBe(canary)
      expect(fallback.result.stderr).toMatch(
        new RegExp(
          `Warning: the vault is unreachable \\(a gateway in front of the vault answered HTTP ${status}: the vault behind it is not answering\\); using the offline copy of environment 'dev' saved \\d+ (s|min) ago`,
        ),
      )
      expect(fallback.result.stderr).not.toContain(canary)
      expect(plain.result.exitCode).toBe(7)
      expect(plain.result.stdout).toBe('')
      expect([fallback.attempts, plain.attempts]).toEqual([1, 3])
      // the retries' backoff (1 s + 2 s) is what --fallback no longer waits for
      expect(plain.ms - fallback.ms).toBeGreaterThan(1500)
      console.info(
        `time to fallback behind a gateway answering ${status}: --fallback ${fallback.ms.toFixed(0)} ms, without ${plain.ms.toFixed(0)} ms`,
      )
    },
  )

  it('export, render and inject --fallback use the copy after one attempt too', async () => {
    gateway.failWith = 502
    const exported = await timed(['export', '--env', 'dev', '--fallback', '--format', 'json'])
    expect(exported.result.exitCode, exported.result.stderr).toBe(0)
    expect(JSON.parse(exported.result.stdout)).toMatchObject({ GW_CANARY: canary })
    const rendered = await timed(['render', '--env', 'dev', '--fallback'])
    expect(rendered.result.exitCode, rendered.result.stderr).toBe(0)
    expect(rendered.result.stdout).toContain(`P: ${canary}`)
    const output = join(stack, 'app.conf')
    const injected = await timed(['inject', '-i', 'app.tmpl', '-o', output, '--env', 'dev', '--fallback'])
    expect(injected.result.exitCode, injected.result.stderr).toBe(0)
    expect(readFileSync(output, 'utf8')).toBe(`token=${canary}\n`)
    for (const { result, attempts } of [exported, rendered, injected]) {
      expect(attempts).toBe(1)
      expect(result.stderr).toMatch(/answered HTTP 502: .*using the offline copy of environment 'dev' saved/)
    }
  })
})
