import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolveSettings } from '../../../src/client/settings.js'
import { checkProject, loadComposeProject } from '../../../src/compose/index.js'
import {
  credentialsFilePath,
  migrateLegacyCredentials,
  writeCredentialsFile,
} from '../../../src/client/credentials-file.js'

const canary = 'canary-client-secret-7f3a'
let stack: string
beforeEach(() => {
  stack = mkdtempSync(join(tmpdir(), 'vault-creds-'))
})
afterEach(() => rmSync(stack, { recursive: true, force: true }))

const legacyEnv = `DB_PASSWORD=db-canary\nVAULT_DOMAIN=https://vault.example\nVAULT_PROJECT_ID=p1\nVAULT_CLIENT_ID=c1\nexport VAULT_CLIENT_SECRET='${canary}'\nTZ=UTC\n`

describe('the credentials file', () => {
  it('is written mode 600 in a mode-700 .vault/ that .gitignore lists, and read back exactly', async () => {
    const file = writeCredentialsFile(stack, { VAULT_DOMAIN: 'https://v', VAULT_CLIENT_SECRET: "a'b $c" })
    expect(file).toBe(credentialsFilePath(stack))
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(stack, '.vault')).mode & 0o777).toBe(0o700)
    expect(readFileSync(join(stack, '.gitignore'), 'utf8').split('\n')).toContain('.vault/')
    const { settings, warnings } = await resolveSettings({ 'stack-dir': stack }, {})
    expect(settings).toMatchObject({ domain: 'https://v', clientSecret: "a'b $c", credentialsFile: file })
    expect(warnings).toEqual([])
  })

  it('beats a legacy .env, which still works with a warning that names doctor --fix', async () => {
    writeFileSync(join(stack, '.env'), legacyEnv, { mode: 0o600 })
    const legacy = await resolveSettings({ 'stack-dir': stack }, {})
    expect(legacy.settings.clientSecret).toBe(canary)
    expect(legacy.warnings.join('\n')).toMatch(/compose reads \.env.*vault doctor --fix/)
    writeCredentialsFile(stack, { VAULT_CLIENT_SECRET: 'from-file' })
    expect((await resolveSettings({ 'stack-dir': stack }, {})).settings.clientSecret).toBe('from-file')
  })

  it('migration moves the four settings, keeps other lines and a mode-600 copy, and is idempotent', async () => {
    writeFileSync(join(stack, '.env'), legacyEnv, { mode: 0o600 })
    const migration = await migrateLegacyCredentials(stack)
    expect(migration.moved).toEqual([
      'VAULT_DOMAIN',
      'VAULT_PROJECT_ID',
      'VAULT_CLIENT_ID',
      'VAULT_CLIENT_SECRET',
    ])
    const env = readFileSync(join(stack, '.env'), 'utf8')
    expect(env).not.toContain('VAULT_')
    expect(env).toContain('DB_PASSWORD=db-canary')
    expect(env).toContain('TZ=UTC')
    expect(statSync(migration.backup!).mode & 0o777).toBe(0o600)
    const { settings, warnings } = await resolveSettings({ 'stack-dir': stack }, {})
    expect(settings).toMatchObject({ domain: 'https://vault.example', clientId: 'c1', clientSecret: canary })
    expect(warnings).toEqual([])
    expect((await migrateLegacyCredentials(stack)).moved).toEqual([])
    expect(readdirSync(join(stack, '.vault')).filter((name) => name.startsWith('env.'))).toHaveLength(1)
  })

  it('replaces a planted symlink and a looser file instead of writing through them', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'vault-creds-elsewhere-'))
    try {
      const loot = join(elsewhere, 'loot')
      writeFileSync(loot, '')
      chmodSync(loot, 0o666)
      mkdirSync(join(stack, '.vault'), { mode: 0o700 })
      symlinkSync(loot, credentialsFilePath(stack))
      const file = writeCredentialsFile(stack, { VAULT_CLIENT_SECRET: canary })
      // The secret never reached the file the link pointed at, which kept its mode.
      expect(readFileSync(loot, 'utf8')).toBe('')
      expect(statSync(loot).mode & 0o777).toBe(0o666)
      expect(lstatSync(file).isFile()).toBe(true)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(readFileSync(file, 'utf8')).toContain(canary)
      // A looser file left by hand is replaced by a new mode-600 one, not rewritten in place (the old
      // inode, still 644, never holds the secret).
      chmodSync(file, 0o644)
      const before = statSync(file).ino
      writeCredentialsFile(stack, { VAULT_CLIENT_SECRET: `${canary}-2` })
      expect(statSync(file).ino).not.toBe(before)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(readdirSync(join(stack, '.vault'))).toEqual(['credentials'])
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('refuses a .vault that is a symlink, writing nothing through it', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'vault-creds-elsewhere-'))
    try {
      chmodSync(elsewhere, 0o777)
      symlinkSync(elsewhere, join(stack, '.vault'))
      expect(() => writeCredentialsFile(stack, { VAULT_CLIENT_SECRET: canary })).toThrow(/symlink/)
      expect(readdirSync(elsewhere)).toEqual([])
      expect(statSync(elsewhere).mode & 0o777).toBe(0o777)
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('appends nothing through a .gitignore that links to a file elsewhere (~/.bashrc)', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'vault-creds-elsewhere-'))
    try {
      const bashrc = join(elsewhere, '.bashrc')
      writeFileSync(bashrc, 'export PS1=x\n')
      symlinkSync(bashrc, join(stack, '.gitignore'))
      writeCredentialsFile(stack, { VAULT_CLIENT_SECRET: canary })
      expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=x\n')
      expect(lstatSync(join(stack, '.gitignore')).isSymbolicLink()).toBe(true)
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('is ignored by git once written', async () => {
    execFileSync('git', ['init', '-q', stack])
    writeCredentialsFile(stack, { VAULT_CLIENT_SECRET: canary })
    expect((await resolveSettings({ 'stack-dir': stack }, {})).warnings).toEqual([])
  })
})

describe('render --check and --mask with vault credentials', () => {
  const compose = `services:
  server:
    image: app
    env_file: .env
  database:
    image: db
    environment:
      POSTGRES_PASSWORD: \${DB_PASSWORD}
`
  it('an env_file: .env service that would receive VAULT_CLIENT_SECRET is an error; after migration it is not', async () => {
    writeFileSync(join(stack, 'compose.yaml'), compose)
    writeFileSync(join(stack, '.env'), legacyEnv, { mode: 0o600 })
    const load = () => loadComposeProject({ cwd: stack, environment: {}, collectProblems: true })
    const before = checkProject(load())
    expect(before.ok).toBe(false)
    expect(before.problems.filter((problem) => problem.code === 'vault_credential')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'error', service: 'server', variable: 'VAULT_CLIENT_SECRET' }),
        expect.objectContaining({ level: 'error', service: 'server', variable: 'VAULT_CLIENT_ID' }),
      ]),
    )
    await migrateLegacyCredentials(stack)
    expect(checkProject(load()).problems.filter((problem) => problem.code === 'vault_credential')).toEqual([])
  })

  it('a service referencing a vault credential is an error', () => {
    writeFileSync(
      join(stack, 'compose.yaml'),
      'services:\n  app:\n    image: app\n    environment:\n      TOKEN: ${VAULT_CLIENT_SECRET:-}\n',
    )
    const result = checkProject(loadComposeProject({ cwd: stack, environment: {}, collectProblems: true }))
    expect(result.problems).toContainEqual(
      expect.objectContaining({ code: 'vault_credential', service: 'app', variable: 'VAULT_CLIENT_SECRET' }),
    )
  })

  it('--mask masks every VAULT_ value whatever its origin (env_file, literal, interpolation)', () => {
    writeFileSync(
      join(stack, 'compose.yaml'),
      `${compose}  other:\n    image: x\n    environment:\n      VAULT_CLIENT_ID: literal-canary\n      SEEN: \${VAULT_PROJECT_ID}\n`,
    )
    writeFileSync(join(stack, '.env'), legacyEnv, { mode: 0o600 })
    const project = loadComposeProject({ cwd: stack, environment: {}, mask: true })
    const text = JSON.stringify(project.model)
    for (const value of [canary, 'literal-canary', 'p1', 'c1', 'https://vault.example'])
      expect(text).not.toContain(value)
    expect(text).toContain('db-canary')
  })

  it('warns when a value in .env is shadowed by the vault', () => {
    writeFileSync(join(stack, 'compose.yaml'), compose)
    writeFileSync(join(stack, '.env'), 'DB_PASSWORD=old\n')
    const project = loadComposeProject({
      cwd: stack,
      environment: {},
      secrets: { DB_PASSWORD: 'new' },
      collectProblems: true,
    })
    expect(checkProject(project).problems).toContainEqual(
      expect.objectContaining({ level: 'warning', code: 'shadowed_by_vault', variable: 'DB_PASSWORD' }),
    )
  })
})
