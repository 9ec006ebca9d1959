/**
 * Answers of a hostile vault that are not names (issue 33, items 2 and 3): huge, endless, slow, deep
 * and redirecting answers, arrays and HTML where objects are expected, against the CLI: the bounds, the
 * watches and `vault run` in a process of their own (its peak memory is measured), the other commands'
 * shapes and redirects in this process (test/helpers/run-vault.ts). The PROPERTIES checked: a bounded
 * answer fails within seconds with one clear line and the CLI's peak memory (VmHWM of its own process)
 * stays under 300 MB; a shape no vault gives is a clear error, never a TypeError; a redirect is never followed (the other host sees no request, the client secret or a
 * password never leaves for it); nothing is exported or started.
 */
import { execa } from 'execa'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runJs, type CliResult } from '../../helpers/cli.js'
import { runVault } from '../../helpers/run-vault.js'
import {
  deep,
  drip,
  endlessFeedLine,
  feed,
  floodFeed,
  huge,
  json,
  manySecrets,
  namedSecrets,
  raw,
  redirect,
  secretRow,
  startHostileVault,
  type HostileScript,
  type HostileVault,
} from '../../helpers/hostile-vault.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'

const reportRss = fileURLToPath(new URL('../../helpers/report-max-rss.mjs', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'vault-hostile-answers-'))
const marker = join(work, 'child-ran')
const maxPeakBytes = 300 * 1024 * 1024

let vault: HostileVault
/** Another host (another loopback address) a redirect points at: it must never see a request. */
let elsewhere: HostileVault
let home: TempHome

beforeAll(async () => {
  vault = await startHostileVault()
  elsewhere = await startHostileVault('127.0.0.2')
  writeFileSync(join(work, 'template.txt'), 'good=${GOOD}\n')
})
afterAll(async () => {
  await vault?.stop()
  await elsewhere?.stop()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})
beforeEach(() => {
  // a fresh token cache: every test's CLI asks the hostile vault for its token
  home?.cleanup()
  home = createTempHome()
  rmSync(marker, { force: true })
  elsewhere.requests.length = 0
  elsewhere.bodies.length = 0
})

const env = (extra: Record<string, string> = {}) => ({
  ...home.env,
  VAULT_DOMAIN: vault.url,
  VAULT_PROJECT_ID: 'p',
  VAULT_CLIENT_ID: 'c',
  VAULT_CLIENT_SECRET: 'client-secret-canary',
  ...extra,
})

interface Measured extends CliResult {
  peak: number
  ms: number
}

/** `vault ARGS` with the peak-memory reporter preloaded. */
async function measured(args: string[], extra: Record<string, string> = {}): Promise<Measured> {
  const rssFile = join(work, 'rss')
  rmSync(rssFile, { force: true })
  const started = Date.now()
  const result = await execa(process.execPath, ['--import', reportRss, '--', runJs, ...args], {
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', VAULT_TEST_RSS_FILE: rssFile, ...env(extra) },
    extendEnv: false,
    cwd: work,
    reject: false,
    timeout: 120_000,
  })
  return {
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    peak: Number(readFileSync(rssFile, 'utf8')),
    ms: Date.now() - started,
  }
}

/** One clear line (and a hint), the exit code given, nothing on stdout, no JavaScript error. */
function expectClearError(result: CliResult, exitCode: number, message: RegExp): void {
  expect(result.exitCode, JSON.stringify(result.stderr)).toBe(exitCode)
  expect(result.stderr).toMatch(message)
  expect(result.stderr, JSON.stringify(result.stderr)).toMatch(/^Error: [^\n]+(\nHint: [^\n]+)?\n?$/)
  expect(result.stderr).not.toMatch(/TypeError|SyntaxError|Cannot read|undefined/)
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  expect(result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
  expect(result.stdout).toBe('')
}

const nodeChild = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`]

describe('every answer is bounded (item 2)', () => {
  it.each<[string, HostileScript, string[], RegExp]>([
    ['a 1.5 GB secrets list', { secrets: huge(1.5e9) }, ['export', '--env', 'dev'], /larger than 64 MiB/],
    [
      'an endless secrets list',
      { secrets: huge(Infinity) },
      ['export', '--env', 'dev'],
      /larger than 64 MiB/,
    ],
    [
      'an endless secrets list to vault run',
      { secrets: huge(Infinity) },
      ['run', '--env', 'dev', '--', ...nodeChild],
      /larger than 64 MiB/,
    ],
    [
      'an endless error answer',
      { secrets: huge(Infinity, 500) },
      ['export', '--env', 'dev'],
      /larger than 64 KiB/,
    ],
    ['an endless token answer', { token: huge(Infinity) }, ['export', '--env', 'dev'], /larger than 1 MiB/],
    ['an endless whoami answer', { whoami: huge(Infinity) }, ['login'], /larger than 1 MiB/],
    [
      'an endless versions answer',
      { versions: huge(Infinity) },
      ['secrets', 'history', 'A', '--env', 'dev'],
      /larger than 64 MiB/,
    ],
  ])('%s fails within seconds, exit 8, under 300 MB', async (_attack, script, args, message) => {
    vault.script(script)
    const result = await measured(args)
    expectClearError(result, 8, message)
    expect(result.peak).toBeLessThan(maxPeakBytes)
    expect(result.ms).toBeLessThan(20_000)
    expect(readdirSync(work)).not.toContain('child-ran')
  })

  it('a 63 MiB list of 900,000 empty secrets (under the byte bound) is refused before it is parsed', async () => {
    vault.script({ secrets: manySecrets(63 * 1024 * 1024) })
    const result = await measured(['export', '--env', 'dev'])
    expectClearError(result, 8, /holds more than 100000 objects and arrays/)
    expect(result.peak).toBeLessThan(maxPeakBytes)
    expect(result.ms).toBeLessThan(20_000)
  })

  it('JSON nested 100,000 levels deep is refused before it is parsed', async () => {
    vault.script({ secrets: deep(100_000) })
    const result = await measured(['export', '--env', 'dev'])
    expectClearError(result, 8, /nested deeper than 64 levels/)
    expect(result.peak).toBeLessThan(maxPeakBytes)
  })

  it('an answer dripped one byte a second ends at the deadline, not retried (exit 7)', async () => {
    vault.script({ secrets: drip(JSON.stringify({ secrets: [secretRow('GOOD')] }), 1000) })
    const result = await measured(['run', '--env', 'dev', '--', ...nodeChild], { VAULT_HTTP_TIMEOUT: '2' })
    expectClearError(result, 7, /began answering GET \/api\/v1\/secrets but did not finish within 2 s/)
    expect(result.ms).toBeLessThan(8000)
    expect(readdirSync(work)).not.toContain('child-ran')
  })

  it.each([
    ['a change-feed line that never ends', endlessFeedLine, /an event is larger than 1 MiB/],
    ['a change feed naming ever new secrets', floodFeed, /its events name more than 10000 different secrets/],
  ])('%s stops the watch within seconds, under 300 MB', async (_attack, events, refusal) => {
    vault.script({ secrets: namedSecrets('GOOD'), events: events() })
    const rssFile = join(work, 'rss-watch')
    const child = execa(
      process.execPath,
      [
        '--import',
        reportRss,
        '--',
        runJs,
        'inject',
        '--env',
        'dev',
        '--watch',
        '-i',
        'template.txt',
        '-o',
        join(work, 'out'),
      ],
      {
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', VAULT_TEST_RSS_FILE: rssFile, ...env() },
        extendEnv: false,
        cwd: work,
        reject: false,
      },
    )
    let stderr = ''
    const refused = new Promise<void>((resolve) =>
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
        if (refusal.test(stderr)) resolve()
      }),
    )
    const started = Date.now()
    await Promise.race([refused, new Promise((resolve) => setTimeout(resolve, 20_000))])
    expect(stderr).toMatch(refusal)
    expect(Date.now() - started).toBeLessThan(20_000)
    child.kill('SIGTERM')
    await child
    expect(Number(readFileSync(rssFile, 'utf8'))).toBeLessThan(maxPeakBytes)
  })
})

describe('an answer of the wrong shape is a clear error (item 3)', () => {
  it.each<[string, HostileScript, string[], number, RegExp]>([
    [
      'a JSON array for the secrets list',
      { secrets: json([]) },
      ['export', '--env', 'dev'],
      8,
      /the answer is an array, not an object/,
    ],
    [
      'secrets as an object',
      { secrets: json({ secrets: {} }) },
      ['run', '--env', 'dev', '--', ...nodeChild],
      8,
      /secrets is an object, not an array/,
    ],
    [
      'a secret that is a number',
      { secrets: json({ secrets: [1] }) },
      ['export', '--env', 'dev'],
      8,
      /secrets\[0\] is a number, not an object/,
    ],
    [
      'a value that is a number',
      { secrets: json({ secrets: [{ ...secretRow('A'), value: 1 }] }) },
      ['export', '--env', 'dev'],
      8,
      /secrets\[0\]\.value is a number/,
    ],
    [
      'a name given twice',
      { secrets: json({ secrets: [secretRow('A', '1'), secretRow('A', '2')] }) },
      ['export', '--env', 'dev'],
      8,
      /names A twice/,
    ],
    [
      'an HTML page for the secrets list',
      { secrets: raw('<html><body>sign in</body></html>', 200, 'text/html') },
      ['export', '--env', 'dev'],
      7,
      /not JSON/,
    ],
    [
      'an HTML page for an error',
      { secrets: raw('<html>502</html>', 500, 'text/html') },
      ['export', '--env', 'dev'],
      7,
      /HTTP 500/,
    ],
    [
      'a JSON array for the token',
      { token: json([]) },
      ['export', '--env', 'dev'],
      8,
      /POST \/api\/v1\/auth\/token: the answer is an array/,
    ],
    [
      'a token answer without a token',
      { token: json({ expires_in: 900 }) },
      ['export', '--env', 'dev'],
      8,
      /access_token/,
    ],
    [
      'a token lifetime that is a string',
      { token: json({ access_token: 't', expires_in: 'soon' }) },
      ['export', '--env', 'dev'],
      8,
      /expires_in/,
    ],
    ['whoami as an array', { whoami: json([]) }, ['login'], 8, /the answer is an array/],
    [
      'whoami without an identity',
      { whoami: json({ project: { id: 'p', name: 'x' }, permissions: {} }) },
      ['login'],
      8,
      /identity is absent/,
    ],
    [
      'versions as an HTML page',
      { versions: raw('<html>', 200, 'text/html') },
      ['secrets', 'history', 'A', '--env', 'dev'],
      7,
      /not JSON/,
    ],
    [
      'versions with a version that is a string',
      { versions: json({ versions: [{ version: '1', createdAt: 'x' }] }) },
      ['secrets', 'history', 'A', '--env', 'dev'],
      8,
      /versions\[0\]\.version/,
    ],
    [
      'a secret as an array',
      { secret: json([]) },
      ['secrets', 'get', 'A', '--env', 'dev'],
      8,
      /the answer is an array/,
    ],
    [
      'a secret whose name is not the rule',
      { secret: json(secretRow('a;b')) },
      ['secrets', 'get', 'A', '--env', 'dev'],
      8,
      /not a secret name/,
    ],
    [
      'an empty answer for the secrets list',
      { secrets: raw('', 200) },
      ['export', '--env', 'dev'],
      8,
      /the answer is absent/,
    ],
  ])('%s', async (_attack, script, args, exitCode, message) => {
    vault.script(script)
    const result = await runVault(args, { env: env(), cwd: work })
    expectClearError(result, exitCode, message)
    expect(readdirSync(work)).not.toContain('child-ran')
  })

  it.each([
    [
      'a change-feed event of the wrong shape',
      feed([['secret', '[1]']]),
      /the answer is an array, not an object/,
    ],
    [
      'a change-feed event id that is not a number (it goes back as a header)',
      raw('id: 1\x1b[2J\nevent: ready\ndata: {}\n\n', 200, 'text/event-stream'),
      /an event id "1\\u001b\[2J" that is not a number/,
    ],
  ])('%s ends the watch with a clear line', async (_attack, events, message) => {
    vault.script({ secrets: namedSecrets('GOOD'), events })
    const child = execa(
      process.execPath,
      [runJs, 'inject', '--env', 'dev', '--watch', '-i', 'template.txt', '-o', join(work, 'out')],
      {
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env() },
        extendEnv: false,
        cwd: work,
        reject: false,
      },
    )
    let stderr = ''
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 20_000)
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
        if (/GET \/api\/v1\/events/.test(stderr)) resolve(clearTimeout(timer))
      })
    })
    child.kill('SIGTERM')
    await child
    expect(stderr).toMatch(/refusing the vault's answer to GET \/api\/v1\/events/)
    expect(stderr).toMatch(message)
  })
})

describe('a redirect is never followed (item 3)', () => {
  const away = (path: string, status?: number) => redirect(() => `${elsewhere.url}${path}`, status)

  it.each<[string, HostileScript, string[]]>([
    [
      'the secrets list redirected to another host',
      { secrets: away('/api/v1/secrets') },
      ['export', '--env', 'dev'],
    ],
    [
      'the token request (with the client secret) redirected, 307 keeps the POST',
      { token: away('/api/v1/auth/token') },
      ['export', '--env', 'dev'],
    ],
    [
      'vault run: the secrets list redirected (301)',
      { secrets: away('/api/v1/secrets', 301) },
      ['run', '--env', 'dev', '--', ...nodeChild],
    ],
  ])('%s: the other host sees nothing, exit 8', async (_attack, script, args) => {
    vault.script(script)
    const result = await runVault(args, { env: env(), cwd: work })
    expectClearError(result, 8, /redirect/)
    expect(result.stderr).toContain(elsewhere.url)
    expect(elsewhere.requests).toEqual([])
    expect(readdirSync(work)).not.toContain('child-ran')
  })

  it('inject --watch: a redirected change feed is not followed', async () => {
    vault.script({ secrets: namedSecrets('GOOD'), events: away('/api/v1/events') })
    const child = execa(
      process.execPath,
      [runJs, 'inject', '--env', 'dev', '--watch', '-i', 'template.txt', '-o', join(work, 'out')],
      {
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env() },
        extendEnv: false,
        cwd: work,
        reject: false,
      },
    )
    let stderr = ''
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 20_000)
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
        if (/redirect/.test(stderr)) resolve(clearTimeout(timer))
      })
    })
    child.kill('SIGTERM')
    await child
    expect(stderr).toMatch(/redirect/)
    expect(elsewhere.requests).toEqual([])
  })
})
