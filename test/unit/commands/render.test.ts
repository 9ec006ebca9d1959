/** `vault render` in process: flags, --check, --json shapes and usage errors (moved from test/e2e/render.test.ts). */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import Render from '../../../src/commands/render.js'
import { runCommand } from '../../helpers/run-command.js'
import { createTempHome } from '../../helpers/temp-home.js'
import { writeStack } from '../../helpers/compose-stack.js'

const seed = fileURLToPath(new URL('../../fixtures/compose/seed-stack/', import.meta.url))
const seedFiles = ['-f', 'compose.yaml', '-f', 'compose.proxy.yaml']

describe('vault render', () => {
  it('renders the seed stack with $ written as $$ and nothing on stderr', async () => {
    const result = await runCommand(Render, [...seedFiles], { cwd: seed, env: { PGID: '7' } })
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toBe('')
    const model = parse(result.stdout)
    expect(model.services.auth.environment.PGID).toBe('7')
    expect(model.services.auth.labels['gateway.http.middlewares.auth.basicauth.users']).toBe(
      'admin:$$apr1$$xyz$$hash',
    )
    expect(model.services['socket-proxy']).toMatchObject({
      privileged: true,
      read_only: true,
      restart: 'unless-stopped',
    })
  })

  it('prints JSON with --format json and the raw model with --no-interpolate', async () => {
    const json = await runCommand(Render, [...seedFiles, '--format', 'json'], { cwd: seed })
    expect(JSON.parse(json.stdout).services.db.environment.PGDATA).toBe('/srv/data/db')
    const raw = await runCommand(Render, [...seedFiles, '--no-interpolate'], { cwd: seed })
    expect(raw.exitCode).toBe(0)
    expect(parse(raw.stdout).services.db.environment.POSTGRES_PASSWORD).toBe('${DATABASE_PASSWORD:?err}')
  })

  it('lists who uses a variable and the variables', async () => {
    const who = await runCommand(Render, [...seedFiles, '--who-uses', 'DATA_DIR'], { cwd: seed })
    expect(who.exitCode).toBe(0)
    expect(who.stdout.split('\n')[0]).toMatch(/^SERVICE\s+FIELD\s+LOCATION$/)
    expect(who.stdout).toMatch(/auth\s+environment\.DATA\s+compose\.yaml:21/)
    expect(who.stdout).toMatch(/db\s+environment\.PGDATA\s+compose\.yaml:31/)
    const variables = await runCommand(Render, [...seedFiles, '--variables', '--json'], { cwd: seed })
    const byName = Object.fromEntries(
      JSON.parse(variables.stdout).variables.map((variable: { name: string }) => [variable.name, variable]),
    )
    expect(byName.DATA_DIR.required).toBe(true)
    expect(byName.TZ.defaultValue).toBe('Europe/Berlin')
    expect(variables.stdout).not.toContain('canary')
  })

  it('warns on stderr about an unset variable, once', async () => {
    const directory = writeStack({
      'compose.yaml': 'services:\n  a:\n    image: "x${NOPE}"\n    command: "$NOPE"\n',
    })
    const result = await runCommand(Render, [], { cwd: directory })
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toBe('Warning: The "NOPE" variable is not set. Defaulting to a blank string.\n')
  })
})

describe('vault render --check', () => {
  const files = {
    'compose.yaml': [
      'services:',
      '  web:',
      '    image: "web:${TAG}"',
      '    environment:',
      '      DB_PASSWORD: ${DB_PASSWORD:?set it in the vault}',
      '      API_KEY: ${API_KEY:?}',
    ].join('\n'),
    '.env': 'API_KEY=\nOTHER=canary-secret-value\n',
  }

  it('prints every problem in a table and exits 10 (the check found something)', async () => {
    const result = await runCommand(Render, ['--check'], { cwd: writeStack(files) })
    expect(result.exitCode).toBe(10)
    const lines = result.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^LEVEL\s+VARIABLE\s+SERVICE\s+LOCATION\s+MESSAGE$/)
    expect(lines[1]).toMatch(/^error\s+DB_PASSWORD\s+web\s+compose\.yaml:5\s+error while interpolating/)
    expect(lines[2]).toMatch(/^error\s+API_KEY\s+web\s+compose\.yaml:6\s+/)
    expect(lines[3]).toMatch(/^warning\s+TAG\s+web\s+compose\.yaml:3\s+The "TAG" variable is not set/)
    expect(lines[4]).toBe('2 error(s), 1 warning(s), 0 info')
    expect(result.stdout + result.stderr).not.toContain('canary')
  })

  it('prints the findings as JSON for scripts and still exits 10', async () => {
    const result = await runCommand(Render, ['--check', '--json'], { cwd: writeStack(files) })
    expect(result.exitCode).toBe(10)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({ ok: false, errors: 2, warnings: 1 })
    expect(report.problems.map((problem: { variable: string }) => problem.variable)).toEqual([
      'DB_PASSWORD',
      'API_KEY',
      'TAG',
    ])
  })

  it('exits 0 when every required variable has a value, warning for the secrets from the shell', async () => {
    const result = await runCommand(Render, ['--check'], {
      cwd: writeStack(files),
      env: { TAG: '1', DB_PASSWORD: 'p', API_KEY: 'k' },
    })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/^warning +API_KEY .*resolves to the shell's value, not the vault/m)
    expect(result.stdout).toMatch(/^warning +DB_PASSWORD .*resolves to the shell's value, not the vault/m)
    expect(result.stdout).toMatch(/0 error\(s\), 2 warning\(s\), 0 info\n$/)
  })

  it.each(['VAULT_ENCRYPTION_KEY', 'ENCRYPTION_KEY', 'VAULT_JWT_SECRET', 'DB_URL'])(
    "is an error when a stack's secret holds the host's %s, without printing it",
    async (setting) => {
      const canary = 'canary-vault-server-setting-5e1d'
      const result = await runCommand(Render, ['--check', '--json'], {
        cwd: writeStack(files),
        env: { TAG: '1', DB_PASSWORD: canary, API_KEY: 'key-of-the-app', [setting]: canary },
      })
      expect(result.exitCode).toBe(10)
      expect(result.stdout).toContain('"server_setting_in_stack"')
      expect(JSON.parse(result.stdout).problems[0]).toMatchObject({ level: 'error', variable: 'DB_PASSWORD' })
      expect(result.stdout + result.stderr).not.toContain(canary)
    },
  )
})

describe('vault render: bad input is one line with file and line, an exit code, nothing on stdout', () => {
  it.each([
    [
      'malformed YAML',
      { 'compose.yaml': 'services:\n  a:\n    image: [x\n' },
      2,
      /^Error: .*compose\.yaml:\d+: invalid YAML: /,
    ],
    [
      'an extends cycle',
      { 'compose.yaml': 'services:\n  a:\n    extends: b\n  b:\n    extends: a\n' },
      2,
      /^Error: .*compose\.yaml:3: extends cycle: a -> b -> a$/,
    ],
    [
      'an unterminated quote in .env',
      { 'compose.yaml': 'services: {}\n', '.env': 'A="open\n' },
      2,
      /^Error: .*\.env:1: unterminated quoted value/,
    ],
    [
      'a required variable',
      { 'compose.yaml': 'services:\n  a:\n    image: "${IMAGE:?set IMAGE}"\n', '.env': 'S=canary-secret\n' },
      3,
      /^Error: .*compose\.yaml:3: error while interpolating services\.a\.image: required variable IMAGE is missing a value: set IMAGE$/,
    ],
    [
      'a malformed reference',
      { 'compose.yaml': 'services:\n  a:\n    image: "${A B}"\n' },
      2,
      /Invalid template: "\$\{A B\}"$/,
    ],
    ['no compose file', { 'other.txt': '' }, 5, /^Error: no configuration file provided: not found$/],
  ])('%s', async (_, files, exitCode, message) => {
    const result = await runCommand(Render, [], { cwd: writeStack(files as Record<string, string>) })
    expect(result.exitCode).toBe(exitCode)
    expect(result.stdout).toBe('')
    expect(result.stderr.split('\n')[0]).toMatch(message)
    expect(result.stderr).not.toContain('canary')
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  it('a missing -f file exits 5', async () => {
    const result = await runCommand(Render, ['-f', 'nope.yaml'], {
      cwd: writeStack({ 'compose.yaml': 'services: {}\n' }),
    })
    expect(result.exitCode).toBe(5)
    expect(result.stderr.split('\n')[0]).toMatch(/^Error: compose file .*nope\.yaml not found$/)
  })

  it('--env without a configured vault says what to set (exit 3)', async () => {
    const home = createTempHome()
    try {
      const result = await runCommand(Render, ['--env', 'dev'], {
        cwd: writeStack({ 'compose.yaml': 'services: {}\n' }),
        env: home.env,
      })
      expect(result.exitCode).toBe(3)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^Error: .*VAULT|domain/i)
    } finally {
      home.cleanup()
    }
  })
})

describe('vault render: include, profiles and validation through the CLI', () => {
  const stack = {
    'compose.yaml': [
      'include:',
      '  - path: db/compose.yaml',
      'services:',
      '  web:',
      '    image: web',
      '    depends_on: [db]',
      '  metrics:',
      '    image: metrics',
      '    profiles: [monitoring]',
      '    environment:',
      '      TOKEN: ${METRICS_TOKEN}',
    ].join('\n'),
    'db/compose.yaml':
      'services:\n  db:\n    image: postgres\n    environment:\n      POSTGRES_PASSWORD: ${DB_PASSWORD:?set it}\n',
  }

  it('renders included services and enables a profile per --profile', async () => {
    const directory = writeStack(stack)
    const plain = await runCommand(Render, ['--format', 'json'], {
      cwd: directory,
      env: { DB_PASSWORD: 'p' },
    })
    expect(plain.exitCode).toBe(0)
    expect(Object.keys(JSON.parse(plain.stdout).services)).toEqual(['db', 'web'])
    expect(plain.stdout).not.toContain('include')
    const profiled = await runCommand(Render, ['--profile', 'monitoring', '--format', 'json'], {
      cwd: directory,
      env: { DB_PASSWORD: 'p', METRICS_TOKEN: 't' },
    })
    expect(Object.keys(JSON.parse(profiled.stdout).services)).toEqual(['db', 'metrics', 'web'])
    const fromVariable = await runCommand(Render, ['--who-uses', 'METRICS_TOKEN'], {
      cwd: directory,
      env: { DB_PASSWORD: 'p', COMPOSE_PROFILES: 'monitoring' },
    })
    expect(fromVariable.stdout).toMatch(/metrics\s+environment\.TOKEN\s+compose\.yaml:11/)
  })

  it('--check reports the required variable of an included file with its file and line', async () => {
    const directory = writeStack(stack)
    const result = await runCommand(Render, ['--check', '--json'], { cwd: directory })
    expect(result.exitCode).not.toBe(0)
    const problem = JSON.parse(result.stdout).problems.find(
      (entry: { variable?: string }) => entry.variable === 'DB_PASSWORD',
    )
    expect(problem).toMatchObject({ level: 'error', service: 'db', line: 5 })
    expect(problem.file).toMatch(/db\/compose\.yaml$/)
  })

  it('refuses a depends_on target that does not exist, naming file and line (exit 2)', async () => {
    const directory = writeStack({
      'compose.yaml': 'services:\n  web:\n    image: web\n    depends_on: [nope]\n',
    })
    const result = await runCommand(Render, [], { cwd: directory })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/compose\.yaml:4: service "web" depends on undefined service "nope"/)
  })
})

describe('vault render usage errors', () => {
  it('a bad --fallback-max-age is a usage error (exit 2) before any vault is asked', async () => {
    const run = await runCommand(Render, ['--env', 'dev', '--fallback', '--fallback-max-age', 'soon'], {
      cwd: writeStack({ 'compose.yaml': 'services: {}\n' }),
      env: { VAULT_DOMAIN: 'http://127.0.0.1:1', VAULT_CLIENT_ID: 'cid', VAULT_CLIENT_SECRET: 'x' },
    })
    expect(run.exitCode).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/--fallback-max-age must be a duration such as 12h or 7d, got "soon"/)
  })
})
