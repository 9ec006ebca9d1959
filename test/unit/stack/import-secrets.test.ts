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
const writer = {
  listSecrets: async () => [...vault].map(([name, value]) => ({ name, value })),
  putSecret: async (name: string, value: string) => void vault.set(name, value),
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
})
