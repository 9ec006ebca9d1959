import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  AuthError,
  IntegrityError,
  NotFoundError,
  UnreachableError,
  UsageError,
} from '../../../src/errors.js'
import { describeAge, fetchWithFallback } from '../../../src/delivery/fallback.js'
import { parseMaxAge, type FallbackPolicy } from '../../../src/delivery/fallback-request.js'
import { fallbackKeyFilePath, readFallbackKey } from '../../../src/delivery/fallback-key.js'
import { copyFilePath, readCopy, writeCopy, type CopyIdentity } from '../../../src/delivery/fallback-store.js'

const canary = 'CANARY-fallback-unit-91c2'
const identity: CopyIdentity = { domain: 'https://vault.example', project: 'p1', environment: 'dev' }
const secrets = [
  { name: 'DB_PASSWORD', value: canary, version: 3 },
  { name: 'OTHER', value: 'other-value', version: 1 },
]

let home: string
let env: NodeJS.ProcessEnv
let warnings: string[]
let clock: number
const policy = (overrides: Partial<FallbackPolicy> = {}): FallbackPolicy => ({
  only: false,
  maxAgeMs: 7 * 86_400_000,
  warn: (line) => warnings.push(line),
  env,
  now: () => clock,
  ...overrides,
})
const unreachable = () => Promise.reject(new UnreachableError('cannot reach https://vault.example'))

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'vault-fallback-unit-'))
  env = {
    HOME: home,
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CONFIG_HOME: join(home, 'config'),
    VAULT_KEYCHAIN: 'off',
  }
  warnings = []
  clock = Date.parse('2026-11-20T10:00:00Z')
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

describe('parseMaxAge and describeAge', () => {
  it.each([
    ['90s', 90_000],
    ['90', 90_000],
    ['30m', 1_800_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
  ])('%s is %i ms', (text, ms) => expect(parseMaxAge(text)).toBe(ms))

  it.each(['', '7 days', '-1d', '1.5h', 'd'])('refuses %j', (text) => {
    expect(() => parseMaxAge(text)).toThrow(UsageError)
  })

  it.each([
    [0, '0 s'],
    [42_000, '42 s'],
    [7_500_000, '2 h 5 min'],
    [3 * 86_400_000 + 4 * 3_600_000 + 59_000, '3 d 4 h'],
  ])('%i ms reads %s', (ms, text) => expect(describeAge(ms)).toBe(text))
})

describe('fetchWithFallback', () => {
  it('writes a mode-600 copy and a mode-600 key apart from it, neither holding a value in clear', async () => {
    expect(await fetchWithFallback(identity, policy(), async () => secrets)).toEqual(secrets)
    const copy = copyFilePath(identity, env)
    const key = fallbackKeyFilePath(env)
    expect(statSync(copy).mode & 0o777).toBe(0o600)
    expect(statSync(key).mode & 0o777).toBe(0o600)
    expect(join(copy, '..')).not.toBe(join(key, '..'))
    for (const file of [copy, key]) {
      const text = readFileSync(file, 'utf8')
      expect(text).not.toContain(canary)
      expect(text).not.toContain(Buffer.from(canary).toString('base64').slice(0, 16))
    }
    expect(warnings).toEqual([])
  })

  it('uses the copy when the vault is unreachable, warning with its age', async () => {
    await fetchWithFallback(identity, policy(), async () => secrets)
    clock += 2 * 3_600_000 + 5 * 60_000
    const used = await fetchWithFallback(identity, policy(), unreachable)
    expect(used.map(({ name, value }) => [name, value])).toEqual(
      secrets.map(({ name, value }) => [name, value]),
    )
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/unreachable.*offline copy of environment 'dev' saved 2 h 5 min ago/)
    expect(warnings[0]).not.toContain(canary)
  })

  it.each([
    ['an authentication error', new AuthError('the vault refused the credentials')],
    ['a missing environment', new NotFoundError('not found')],
  ])('never falls back on %s', async (_what, error) => {
    await fetchWithFallback(identity, policy(), async () => secrets)
    await expect(fetchWithFallback(identity, policy(), () => Promise.reject(error))).rejects.toBe(error)
  })

  it('refuses a copy older than the maximum age with the original exit-7 error', async () => {
    await fetchWithFallback(identity, policy(), async () => secrets)
    clock += 8 * 86_400_000
    const refused = fetchWithFallback(identity, policy(), unreachable)
    await expect(refused).rejects.toThrow(UnreachableError)
    await expect(refused).rejects.toThrow(/8 d old, older than --fallback-max-age \(7 d\)/)
  })

  it('--fallback-only never calls the vault and says when there is no copy', async () => {
    const never = () => Promise.reject(new Error('the vault was called'))
    await expect(fetchWithFallback(identity, policy({ only: true }), never)).rejects.toThrow(NotFoundError)
    await fetchWithFallback(identity, policy(), async () => secrets)
    expect(await fetchWithFallback(identity, policy({ only: true }), never)).toHaveLength(2)
  })

  it('keeps copies of different environments apart', async () => {
    await fetchWithFallback(identity, policy(), async () => secrets)
    const prod = { ...identity, environment: 'prod' }
    await expect(fetchWithFallback(prod, policy(), unreachable)).rejects.toThrow(
      /no offline copy of environment 'prod'/,
    )
  })
})

describe('readCopy refuses a wrong or corrupted copy with an IntegrityError (exit 8)', () => {
  const tamper: [string, (file: Record<string, string>) => void][] = [
    [
      'a flipped ciphertext byte',
      (file) => {
        const bytes = Buffer.from(file.ciphertext!, 'base64')
        bytes[0] = bytes[0]! ^ 1
        file.ciphertext = bytes.toString('base64')
      },
    ],
    ['a changed tag', (file) => (file.tag = randomBytes(16).toString('base64'))],
    [
      'a younger saved-at date (the age is authenticated)',
      (file) => (file.savedAt = '2026-11-24T10:00:00.000Z'),
    ],
    ['another environment written in the header', (file) => (file.environment = 'prod')],
    ['a truncated file', (file) => (file.ciphertext = '')],
  ]
  it.each(tamper)('%s', async (_attack, change) => {
    const key = randomBytes(32)
    await writeCopy({ identity, savedAt: clock, secrets }, key, env)
    const path = copyFilePath(identity, env)
    const file = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>
    change(file)
    writeFileSync(path, JSON.stringify(file))
    await expect(readCopy(identity, key, env)).rejects.toThrow(IntegrityError)
  })

  it('a copy opened with another key', async () => {
    await writeCopy({ identity, savedAt: clock, secrets }, randomBytes(32), env)
    await expect(readCopy(identity, randomBytes(32), env)).rejects.toThrow(/integrity check/)
  })

  it('a copy whose key is gone', async () => {
    await writeCopy({ identity, savedAt: clock, secrets }, randomBytes(32), env)
    expect(await readFallbackKey(env)).toBeUndefined()
    await expect(readCopy(identity, undefined, env)).rejects.toThrow(/key is missing/)
  })

  it('a file that is not a copy at all', async () => {
    await writeCopy({ identity, savedAt: clock, secrets }, randomBytes(32), env)
    writeFileSync(copyFilePath(identity, env), `DB_PASSWORD=${canary}\n`)
    const refused = readCopy(identity, randomBytes(32), env)
    await expect(refused).rejects.toThrow(/is corrupted/)
    await expect(refused).rejects.not.toThrow(canary)
  })
})

describe('the directories of the copies and the key, made by someone else', () => {
  const stateVault = () => join(env.XDG_STATE_HOME!, 'vault')
  const configVault = () => join(env.XDG_CONFIG_HOME!, 'vault')
  const forged = [{ name: 'DB_PASSWORD', value: 'chosen-by-the-other-user' }]

  /** The other user's key and a copy sealed under it, planted in directories anyone may write. */
  async function plantForgery(): Promise<void> {
    const theirs = {
      ...env,
      XDG_STATE_HOME: join(home, 'their-state'),
      XDG_CONFIG_HOME: join(home, 'their-config'),
    }
    const key = randomBytes(32)
    await writeCopy({ identity, savedAt: clock, secrets: forged }, key, theirs)
    for (const directory of [stateVault(), join(stateVault(), 'fallback'), configVault()]) {
      mkdirSync(directory, { recursive: true })
      chmodSync(directory, 0o777)
    }
    writeFileSync(copyFilePath(identity, env), readFileSync(copyFilePath(identity, theirs)))
    writeFileSync(fallbackKeyFilePath(env), `${key.toString('base64')}\n`)
  }

  it('never uses a copy and a key planted in directories other users can write', async () => {
    await plantForgery()
    const used = fetchWithFallback(identity, policy(), unreachable)
    await expect(used).rejects.toThrow(/can be written by other users \(mode 777\)/)
    await expect(fetchWithFallback(identity, policy({ only: true }), unreachable)).rejects.toThrow(
      /refusing to use/,
    )
  })

  it('writes no copy or key into a directory other users can write, and leaves it as it was', async () => {
    for (const directory of [join(stateVault(), 'fallback'), configVault()]) {
      mkdirSync(directory, { recursive: true })
      chmodSync(directory, 0o777)
    }
    // the fetch succeeded, so its secrets are used; the refresh of the copy is refused with a warning
    expect(await fetchWithFallback(identity, policy(), async () => secrets)).toEqual(secrets)
    expect(warnings.join('\n')).toMatch(
      /could not be updated: refusing to use .* can be written by other users/,
    )
    expect(readdirSync(join(stateVault(), 'fallback'))).toEqual([])
    expect(readdirSync(configVault())).toEqual([])
  })

  it('tightens its own directories that others could only read to 700, and uses them', async () => {
    for (const directory of [stateVault(), join(stateVault(), 'fallback'), configVault()]) {
      mkdirSync(directory, { recursive: true })
      chmodSync(directory, 0o755)
    }
    await fetchWithFallback(identity, policy(), async () => secrets)
    for (const directory of [stateVault(), join(stateVault(), 'fallback'), configVault()])
      expect(statSync(directory).mode & 0o777).toBe(0o700)
    expect(await fetchWithFallback(identity, policy(), unreachable)).toHaveLength(2)
  })

  it.skipIf(process.getuid?.() !== 0)(
    'refuses a directory another user owns, even a closed one',
    async () => {
      mkdirSync(join(stateVault(), 'fallback'), { recursive: true, mode: 0o700 })
      chownSync(join(stateVault(), 'fallback'), 65534, 65534)
      expect(await fetchWithFallback(identity, policy(), async () => secrets)).toEqual(secrets)
      expect(warnings.join('\n')).toMatch(/belongs to uid 65534/)
      expect(readdirSync(join(stateVault(), 'fallback'))).toEqual([])
    },
  )

  it('refuses a symlink at the directory of the copies', async () => {
    const elsewhere = join(home, 'elsewhere')
    mkdirSync(elsewhere, { mode: 0o700 })
    mkdirSync(stateVault(), { recursive: true, mode: 0o700 })
    symlinkSync(elsewhere, join(stateVault(), 'fallback'))
    expect(await fetchWithFallback(identity, policy(), async () => secrets)).toEqual(secrets)
    expect(warnings.join('\n')).toMatch(/is a symlink/)
    expect(readdirSync(elsewhere)).toEqual([])
  })
})
