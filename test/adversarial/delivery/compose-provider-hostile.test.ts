/**
 * `vault compose up` against a vault server that answers what an honest one never would (issue 36,
 * section 1): names compose would deliver under another name or not at all, repeats, values that are
 * not strings, no list. One row per answer; the PROPERTY checked for every row, through the compose
 * driver (test/helpers/compose-provider-driver.ts, after docker/compose f72979427042620a94dd52ce78b39c68cb02c085
 * pkg/compose/plugins.go), is that `up` fails with an error message and a non-zero exit, that stdout
 * carries no setenv or rawsetenv at all (not even for the well-formed secrets of the same answer), that
 * no dependent service receives anything, and that no value shows in the error.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runJs } from '../../helpers/cli.js'
import { runProviderStep, type ComposeProject } from '../../helpers/compose-provider-driver.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'

const good = { name: 'GOOD', value: 'CANARY-good-81c2', version: 1, createdAt: 'x', updatedAt: 'x' }
const secret = (name: unknown, value: unknown = 'CANARY-bad-81c2') => ({
  name,
  value,
  version: 1,
  createdAt: 'x',
  updatedAt: 'x',
})

/** attack, the `secrets` the hostile vault answers with. */
const answers: [string, unknown][] = [
  ['a name with = (compose would cut it there)', [good, secret('A=B')]],
  ['a lower-case name', [good, secret('lower')]],
  ['a name with a newline', [good, secret('A\nINJECTED')]],
  ['a name with a space', [good, secret('A B')]],
  ['__proto__', [good, secret('__proto__')]],
  ['constructor', [good, secret('constructor')]],
  ['an empty name', [good, secret('')]],
  ['a name that is a number', [good, secret(42)]],
  ['a name that is missing', [good, { value: 'CANARY-bad-81c2' }]],
  ['a value that is a number', [good, secret('NUMBER', 42)]],
  ['a value that is an object', [good, secret('OBJECT', { toString: 'x' })]],
  ['a value that is null', [good, secret('NULL_VALUE', null)]],
  ['the same name twice', [good, secret('GOOD', 'CANARY-second-81c2')]],
  ['null in the list', [good, null]],
  ['no list', { GOOD: 'CANARY-good-81c2' }],
  ['no secrets field', undefined],
]

let hostile: Server
let home: TempHome
let answer: unknown
const work = mkdtempSync(join(tmpdir(), 'vault-provider-hostile-'))
const binDir = join(work, 'bin')
let project: ComposeProject

beforeAll(async () => {
  hostile = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    const body =
      path === '/api/v1/auth/token'
        ? { access_token: 't', token_type: 'Bearer', expires_in: 900 }
        : path === '/api/v1/secrets'
          ? answer === undefined
            ? {}
            : { secrets: answer }
          : { error: 'not found' }
    response.writeHead(path === '/api/v1/auth/token' || path === '/api/v1/secrets' ? 200 : 404, {
      'content-type': 'application/json',
    })
    response.end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve))
  const address = hostile.address() as { port: number }
  home = createTempHome()
  mkdirSync(binDir)
  writeFileSync(join(binDir, 'vault'), `#!/bin/sh\nexec '${process.execPath}' -- '${runJs}' "$@"\n`, {
    mode: 0o755,
  })
  project = {
    name: 'homelab',
    environment: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...home.env,
      VAULT_DOMAIN: `http://127.0.0.1:${address.port}`,
      VAULT_PROJECT_ID: 'p',
      VAULT_CLIENT_ID: 'c',
      VAULT_CLIENT_SECRET: 's',
    },
    services: {
      secrets: { provider: { type: 'vault', options: { env: 'dev', secrets: '*' } } },
      app: { dependsOn: ['secrets'], environment: { KEEP: 'kept' } },
    },
  }
})
afterAll(async () => {
  await new Promise((resolve) => hostile?.close(resolve))
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

describe('vault compose up against a hostile vault answer', () => {
  it('sends an honest answer (the control row: the server and driver work)', async () => {
    answer = [good]
    const run = await runProviderStep(project, 'secrets', 'up', { path: binDir, cwd: work })
    expect(run.error).toBeUndefined()
    expect(run.services.app).toEqual({ KEEP: 'kept', GOOD: good.value })
  })

  it.each(answers)('refuses %s: an error message, a non-zero exit, nothing set', async (_, secrets) => {
    answer = secrets
    const run = await runProviderStep(project, 'secrets', 'up', { path: binDir, cwd: work })
    expect(run.error).toMatch(/refusing the vault's answer|vault answered/)
    expect(run.exitCode).not.toBe(0)
    const types = (run.stdout ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { type: string }).type)
    expect(types).toEqual(['error'])
    expect(run.services.app).toEqual({ KEEP: 'kept' })
    expect(run.error).not.toContain('CANARY')
  })
})
