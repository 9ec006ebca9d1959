import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseEnvFile } from '../../../src/compose/env-file.js'
import { dotenvSpans } from '../../../src/stack/dotenv-lines.js'
import { importSecrets, type ImportOptions } from '../../../src/stack/import-secrets.js'

const dotenv = [
  '# the stack',
  'DB_PASSWORD=canary-db-1',
  "REDIS_PASSWORD='canary $literal'",
  'MULTI="line one',
  'line two"',
  'DB_URL=postgres://app:${DB_PASSWORD}@db/app # a comment',
  'export TZ=UTC',
  'VAULT_CLIENT_SECRET=canary-credential',
  'INHERITED',
  'lower.case=x',
  '',
].join('\n')

let dir: string
let file: string
let vault: Map<string, string>
let templates: Set<string>
const writer = {
  listSecrets: async () =>
    [...vault].map(([name, value]) => ({ name, value, template: templates.has(name) })),
  putSecret: async (name: string, value: string, _environment?: string, options?: { template?: boolean }) => {
    vault.set(name, value)
    if (options?.template) templates.add(name)
  },
}
const run = (options: Partial<ImportOptions> = {}) =>
  importSecrets(writer, {
    file,
    environment: 'dev',
    force: false,
    dryRun: false,
    move: false,
    processEnv: {},
    usersOf: async (names) =>
      Object.fromEntries(names.map((name) => [name, name === 'DB_PASSWORD' ? ['db', 'server'] : []])),
    ...options,
  })

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vault-import-'))
  file = join(dir, '.env')
  writeFileSync(file, dotenv, { mode: 0o644 })
  vault = new Map()
  templates = new Set()
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('secrets import', () => {
  it('imports every value as compose reads it, with its users; skips VAULT_, bare and invalid names', async () => {
    const result = await run()
    expect(Object.fromEntries(vault)).toEqual({
      DB_PASSWORD: 'canary-db-1',
      REDIS_PASSWORD: 'canary $literal',
      MULTI: 'line one\nline two',
      DB_URL: 'postgres://app:canary-db-1@db/app',
      TZ: 'UTC',
    })
    const byName = Object.fromEntries(result.secrets.map((secret) => [secret.name, secret]))
    expect(byName.DB_PASSWORD).toMatchObject({ action: 'created', services: ['db', 'server'] })
    for (const name of ['VAULT_CLIENT_SECRET', 'INHERITED', 'lower.case'])
      expect(byName[name]?.action).toBe('skipped')
    expect(JSON.stringify(result)).not.toContain('canary')
  })

  it('--dry-run writes nothing; --only narrows and refuses a name the file lacks', async () => {
    const result = await run({ dryRun: true, only: ['DB_PASSWORD'] })
    expect(vault.size).toBe(0)
    expect(result.secrets).toEqual([{ name: 'DB_PASSWORD', action: 'created', services: ['db', 'server'] }])
    await expect(run({ only: ['NOPE'] })).rejects.toThrow(/not in .*: NOPE/)
  })

  it('never overwrites a different value without --force; an equal value is unchanged', async () => {
    vault.set('DB_PASSWORD', 'other')
    vault.set('TZ', 'UTC')
    const kept = await run({ only: ['DB_PASSWORD', 'TZ'] })
    expect(kept.secrets.map((secret) => secret.action)).toEqual(['kept', 'unchanged'])
    expect(vault.get('DB_PASSWORD')).toBe('other')
    await run({ only: ['DB_PASSWORD'], force: true })
    expect(vault.get('DB_PASSWORD')).toBe('canary-db-1')
  })

  it('--move leaves no moved value in FILE, keeps a mode-600 copy, and compose still reads the same values from the environment', async () => {
    const result = await run({ move: true, only: ['DB_PASSWORD', 'MULTI'] })
    expect(result.moved).toEqual(['DB_PASSWORD', 'MULTI'])
    const after = readFileSync(file, 'utf8')
    expect(after).not.toContain('canary-db-1')
    expect(after).not.toContain('line two')
    expect(after).toContain("REDIS_PASSWORD='canary $literal'")
    expect(statSync(result.backup!).mode & 0o777).toBe(0o600)
    expect(readFileSync(result.backup!, 'utf8')).toBe(dotenv)
    expect(statSync(file).mode & 0o777).toBe(0o644)
    const fromVault = { DB_PASSWORD: 'canary-db-1', MULTI: 'line one\nline two', INHERITED: undefined }
    const before = parseEnvFile(dotenv, () => undefined)
    const now = parseEnvFile(after, (name) => fromVault[name as keyof typeof fromVault])
    expect(now).toEqual(before)
  })

  it('finds each entry span, multi-line values included', () => {
    const spans = dotenvSpans(dotenv)
    expect(spans.find((span) => span.key === 'MULTI')).toMatchObject({ first: 4, last: 5, bare: false })
    expect(spans.find((span) => span.key === 'INHERITED')).toMatchObject({ first: 9, last: 9, bare: true })
  })

  it("shows a value holding another secret's value; --templates stores it as a template of it", async () => {
    const dry = await run({ dryRun: true })
    const url = dry.secrets.find((secret) => secret.name === 'DB_URL')!
    expect(url).toMatchObject({ action: 'created', templateOf: 'DB_PASSWORD' })
    expect(url.reason).toBe('holds the value of DB_PASSWORD: --templates stores it as a template of it')
    expect(vault.size).toBe(0)
    const result = await run({ templates: true })
    expect(result.secrets.find((secret) => secret.name === 'DB_URL')!.reason).toBe(
      'as a template of DB_PASSWORD',
    )
    expect(vault.get('DB_URL')).toBe('postgres://app:${DB_PASSWORD}@db/app')
    expect([...templates]).toEqual(['DB_URL'])
    expect(JSON.stringify(result)).not.toContain('canary')
  })

  it('a substring of a longer value, not a short one; a VAULT_ value is never a template source', async () => {
    writeFileSync(
      file,
      'API_TOKEN=tok-canary-4411\nHEADER=Bearer tok-canary-4411\nSHORT_KEY=abc\nNOTE=abc and more\n' +
        'VAULT_CLIENT_SECRET=credential-canary\nCOPY=credential-canary\n',
    )
    const result = await run({ templates: true })
    const byName = Object.fromEntries(result.secrets.map((secret) => [secret.name, secret]))
    expect(vault.get('HEADER')).toBe('Bearer ${API_TOKEN}')
    expect(byName.NOTE!.templateOf).toBeUndefined()
    expect(byName.COPY!.templateOf).toBeUndefined()
    expect(vault.get('COPY')).toBe('credential-canary')
  })

  it('warns of an unset $VAR before anything is written, also in a dry run; --raw keeps the text', async () => {
    writeFileSync(file, 'DB_URL=postgres://app:${PGPASS}@db/app\nDB_PASSWORD=canary-x-1\n')
    const seen: { warning: string; written: number }[] = []
    const onWarning = (warning: string) => seen.push({ warning, written: vault.size })
    const dry = await run({ dryRun: true, onWarning })
    expect(dry.warnings).toEqual([
      `${file}:1: the "PGPASS" variable is not set: its value would hold a blank string there (--raw imports the value as written)`,
    ])
    expect(seen).toEqual([{ warning: dry.warnings[0], written: 0 }])
    await run({ onWarning })
    expect(seen.map((entry) => entry.written)).toEqual([0, 0])
    expect(vault.get('DB_URL')).toBe('postgres://app:@db/app')
    vault.clear()
    const raw = await run({ raw: true, onWarning: () => expect.unreachable() })
    expect(raw).toMatchObject({ raw: true, warnings: [] })
    expect(vault.get('DB_URL')).toBe('postgres://app:${PGPASS}@db/app')
  })
})

describe('secrets import: plain settings', () => {
  it("notes a value that reads as a setting (authentik's .env), and still imports what it is given", async () => {
    writeFileSync(
      file,
      'PG_PASS=canary-pg-1\nAUTHENTIK_ERROR_REPORTING__ENABLED=true\nCOMPOSE_PORT_HTTP=9000\nTZ=UTC\nAPI_KEY=true\n',
    )
    const result = await run({ dryRun: true })
    expect(result.secrets.map((secret) => [secret.name, secret.action, secret.reason])).toEqual([
      ['PG_PASS', 'created', undefined],
      [
        'AUTHENTIK_ERROR_REPORTING__ENABLED',
        'created',
        'a setting (a boolean), not a secret: it can stay in .env (--only names the secrets)',
      ],
      [
        'COMPOSE_PORT_HTTP',
        'created',
        'a setting (a number), not a secret: it can stay in .env (--only names the secrets)',
      ],
      ['TZ', 'created', undefined],
      ['API_KEY', 'created', undefined],
    ])
    expect(JSON.stringify(result)).not.toContain('canary')
  })
})
