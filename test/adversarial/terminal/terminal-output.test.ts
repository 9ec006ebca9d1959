/**
 * Hostile text against the admin's terminal (issue 14, item 5): control sequences planted where vault
 * prints them (an audit row from a failed login, a hostile vault server's names and messages, a compose
 * file, a request path, a flag name). One row per attack; the PROPERTY checked for every row is that no
 * raw control byte (C0 but newline and tab, DEL, C1 0x80-0x9f, bidi overrides) reaches stdout or stderr
 * of the CLI (its commands run in this process, their streams captured; the built CLI where stdout is a
 * terminal), that a planted newline or CR does not forge an output line, and that the planted text is
 * still shown (escaped), so the test cannot pass by printing nothing.
 */
import { execa } from 'execa'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runJs, type CliResult } from '../../helpers/cli.js'
import { runCommandLine } from '../../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'
import { startVaultServer, type TestVault } from '../../helpers/vault-server.js'

/** Clear screen, set the title (OSC ... BEL), CR + a forged row, a newline + a forged row, C1 CSI, RLO. */
const payload = '\u001b[2J\u001b]0;pwned\u0007\rFORGED-CR\nFORGED-LF\u009b31m\u202eevil\u0008\u007f'
/** What a terminal would obey: C0 but newline and tab, DEL, C1, bidi controls. */
const rawControl =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

function expectTerminalSafe(result: CliResult, shown = true): void {
  for (const [stream, text] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    expect(rawControl.exec(text), `${stream}: ${JSON.stringify(text)}`).toBeNull()
    // a planted newline or CR never starts a line of its own
    expect(
      text.split('\n').some((line) => /^(FORGED-CR|FORGED-LF)/.test(line)),
      stream,
    ).toBe(false)
  }
  // the hostile text is shown, escaped: the command really printed it
  if (shown) expect(result.stdout + result.stderr).toMatch(/\\x1b\[2J|\\u001b\[2J/)
}

let hostile: Server
let hostileUrl: string
let vault: TestVault
let home: TempHome
const work = mkdtempSync(join(tmpdir(), 'vault-terminal-'))

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

/** A vault server that answers with the payload wherever the CLI prints what it got. */
function hostileVault(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://x')
  const path = url.pathname
  if (path === '/api/v1/auth/token') return answer(response, 200, { access_token: 't', expires_in: 900 })
  if (path === '/api/v1/whoami') {
    return answer(response, 200, {
      identity: { id: 'i', name: `deploy${payload}`, clientId: 'c' },
      project: { id: 'p', name: `home${payload}` },
      permissions: {},
    })
  }
  if (path === '/api/v1/secrets') {
    const at = `2026-01-01${payload}`
    return answer(response, 200, {
      // a name outside the rule is refused (test/adversarial/client/hostile-names.test.ts): the
      // timestamps and the value carry the payload
      secrets: [{ name: 'NAME', version: 1, createdAt: at, updatedAt: at, value: `v${payload}` }],
    })
  }
  if (path === '/api/v1/secrets/A') {
    return answer(response, 200, {
      name: 'A',
      value: `pw${payload}`,
      version: 1,
      createdAt: 'x',
      updatedAt: 'x',
    })
  }
  if (path.endsWith('/versions')) {
    return answer(response, 200, {
      versions: [{ version: 1, createdAt: 'now', actor: `identity:${payload}` }],
    })
  }
  answer(response, 404, { error: { code: 'not_found', message: `no such secret\u009b31m${payload}` } })
}

beforeAll(async () => {
  hostile = createServer(hostileVault)
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve))
  hostileUrl = `http://127.0.0.1:${(hostile.address() as { port: number }).port}`
  vault = await startVaultServer({})
  home = createTempHome()
  // the planted audit row: a failed login whose client_id carries the payload
  await fetch(`${vault.url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: payload, client_secret: 'x' }),
  })
  // a row edited with SQL: actor and target hold the payload
  const database = new DatabaseSync(vault.dbUrl.replace(/^sqlite:\/\//, ''))
  database
    .prepare('UPDATE audit_events SET actor = ?, target = ? WHERE seq = (SELECT MAX(seq) FROM audit_events)')
    .run(`client:${payload}`, payload)
  database.close()
  writeFileSync(
    join(work, 'compose.yaml'),
    // every control character written as a YAML escape: a compose file may not hold them raw (go-yaml
    // and vault refuse it), but a double-quoted string may produce them, and so the message
    `services:\n  web:\n    image: x\n    environment:\n      P: "\${P:?${yamlEscaped(payload)}}"\n`,
  )
})
afterAll(async () => {
  hostile?.close()
  await vault?.stop()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

/** `text` for a YAML double-quoted scalar, each control and bidi character as a `\uXXXX` escape. */
function yamlEscaped(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

const client = () => ({
  ...home.env,
  VAULT_DOMAIN: hostileUrl,
  VAULT_PROJECT_ID: 'p',
  VAULT_CLIENT_ID: 'c',
  VAULT_CLIENT_SECRET: 's',
})
const admin = () => ({ ...home.env, DB_URL: vault.dbUrl, ENCRYPTION_KEY: vault.encryptionKey })

describe('no control byte from hostile text reaches the terminal', () => {
  it('audit list: a failed login with an escape-laden client_id (the server may refuse to store it)', async () => {
    expectTerminalSafe(await runCommandLine(['audit', 'list'], { env: admin(), cwd: work }), false)
  })

  it.each<[string, () => string[], () => Record<string, string>]>([
    ['audit list: an audit row edited in the database itself', () => ['audit', 'list'], admin],
    [
      'secrets list: a hostile server dates a secret with escapes',
      () => ['secrets', 'list', '--env', 'dev'],
      client,
    ],
    ['secrets history: a hostile actor name', () => ['secrets', 'history', 'A', '--env', 'dev'], client],
    ['login: a hostile identity and project name', () => ['login'], client],
    ['an error message from the server', () => ['secrets', 'get', 'NOPE', '--env', 'dev'], client],
    [
      'render --check: a compose message with escapes',
      () => ['render', '--check', '-f', join(work, 'compose.yaml')],
      () => home.env,
    ],
    [
      'proxy check: a request path with escapes',
      () => ['proxy', 'check', 'GET', `/x${payload}`],
      () => home.env,
    ],
    ['an unknown flag named with escapes', () => ['pwgen', `--x${payload}`], () => home.env],
  ])('%s', async (_attack, args, env) => {
    const result = await runCommandLine(args(), { env: env(), cwd: work })
    expectTerminalSafe(result)
  })

  it.each<[string, () => string[]]>([
    [
      'secrets list --json: dates with C1 and bidi controls',
      () => ['secrets', 'list', '--env', 'dev', '--json'],
    ],
    [
      'secrets get --json: a hostile error message',
      () => ['secrets', 'get', 'NOPE', '--env', 'dev', '--json'],
    ],
  ])('%s: JSON escapes them and parses back to the same text', async (_attack, args) => {
    const result = await runCommandLine(args(), { env: client(), cwd: work })
    expect(rawControl.exec(result.stdout + result.stderr)).toBeNull()
    expect(JSON.stringify(JSON.parse(result.stdout))).toContain('\u009b31m')
  })
})

describe('secret values shown on a terminal', () => {
  it.each([
    ['secrets get to a terminal: a value planted with escapes', 'secrets get A --env dev'],
    ['export to a terminal: a value planted with escapes', 'export --env dev'],
  ])('%s', async (_attack, command) => {
    // `script` gives the CLI a real terminal as stdout; the terminal turns \n into \r\n
    const shown = await execa('script', ['-qec', `${process.execPath} ${runJs} ${command}`, '/dev/null'], {
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...client() },
      extendEnv: false,
      cwd: work,
      reject: false,
      timeout: 30_000,
    })
    const text = String(shown.stdout).replaceAll('\r\n', '\n')
    expect(rawControl.exec(text), JSON.stringify(text)).toBeNull()
    expect(text).toMatch(/\\x1b\[2J/)
  })
})
