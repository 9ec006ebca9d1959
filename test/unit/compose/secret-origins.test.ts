/**
 * render --check for a migrating operator: secret-looking variables from a compose default, the shell
 * or the project .env instead of the vault (warnings), the vault server's own settings in a stack
 * (error), and vault secrets copied inside others (warnings). Third-party stacks as published.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { renderStack, type CheckedStack } from '../../../src/compose/render.js'
import { formatRenderReport } from '../../../src/compose/report.js'
import { staticSecretLayer, type SecretLayer } from '../../../src/compose/secret-layer.js'
import { looksSecret } from '../../../src/compose/secret-origins.js'
import { writeStack } from '../../helpers/compose-stack.js'

const stacks = fileURLToPath(new URL('../../fixtures/stacks/', import.meta.url))

async function check(
  cwd: string,
  request: {
    environment?: Record<string, string>
    serverSettings?: string[]
    vaultEnvironment?: string
  } = {},
  layer?: SecretLayer,
): Promise<CheckedStack> {
  const result = await renderStack(
    { mode: 'check', cwd, environment: request.environment ?? {}, composeClient: 'v2', ...request },
    layer,
  )
  if (result.kind !== 'check') throw new Error('expected a check')
  return result
}

const findings = (result: CheckedStack, codes: string[]) =>
  result.problems
    .filter((problem) => codes.includes(problem.code))
    .map((problem) => `${problem.level} ${problem.code} ${problem.variable}`)

const origins = ['secret_not_from_vault', 'server_setting_in_stack']

describe('secrets not from the vault, on third-party stacks as published', () => {
  it.each([
    ['immich', ['warning secret_not_from_vault DB_PASSWORD']],
    ['nextcloud-postgres', ['warning secret_not_from_vault POSTGRES_PASSWORD']],
    [
      'postgresql-pgadmin',
      ['warning secret_not_from_vault PGADMIN_PW', 'warning secret_not_from_vault POSTGRES_PW'],
    ],
    [
      'wordpress-mysql',
      ['warning secret_not_from_vault MYSQL_PASSWORD', 'warning secret_not_from_vault MYSQL_ROOT_PASSWORD'],
    ],
  ])('%s', async (stack, expected) => {
    const result = await check(`${stacks}${stack}`)
    expect(findings(result, origins)).toEqual(expected)
    expect(result.problems.find((problem) => problem.code === 'secret_not_from_vault')?.message).toContain(
      "resolves to the project env file's value, not the vault: vault secrets import .env --only",
    )
  })

  it('once the values are in the vault, nextcloud has no such warning', async () => {
    const layer = staticSecretLayer({ dev: { POSTGRES_PASSWORD: 'canary-nextcloud-pw' } })
    const result = await check(`${stacks}nextcloud-postgres`, { vaultEnvironment: 'dev' }, layer)
    expect(findings(result, origins)).toEqual([])
  })
})

const compose = [
  'services:',
  '  app:',
  '    image: app',
  '    environment:',
  '      ADMIN_PASSWORD: ${ADMIN_PASSWORD:-changeme}',
  '      API_TOKEN: ${API_TOKEN}',
  '      DATABASE_URL: ${DATABASE_URL:-postgresql://app:canary-url-pw@db/app}',
  '      SSL_KEY: ${SSL_KEY:-/etc/ssl/private/app.key}',
  '      CERT_KEY_FILE: ${CERT_KEY_FILE:-app.key}',
  '      TZ: ${TZ:-UTC}',
  '      SESSION_SECRET: ${SESSION_SECRET:-}',
  '      APP_KEY: ${APP_KEY}',
].join('\n')

describe('secrets from a compose default or the shell', () => {
  it('warns for each secret-looking one, by name or URL password, never a path, never printing a value', async () => {
    const cwd = writeStack({ 'compose.yaml': compose })
    const result = await check(cwd, { environment: { API_TOKEN: 'canary-shell-token', TZ: 'Europe/Paris' } })
    expect(findings(result, origins)).toEqual([
      'warning secret_not_from_vault ADMIN_PASSWORD',
      'warning secret_not_from_vault API_TOKEN',
      'warning secret_not_from_vault DATABASE_URL',
    ])
    const messages = result.problems.map((problem) => problem.message).join('\n')
    expect(messages).toContain(
      'ADMIN_PASSWORD looks like a secret but resolves to the default written in the compose file',
    )
    expect(messages).toContain("API_TOKEN looks like a secret but resolves to the shell's value")
    expect(`${messages}${formatRenderReport(result, cwd)}`).not.toMatch(/canary|changeme/)
  })

  it("is an error when a value is one of the vault server's settings on this host, under any name", async () => {
    const cwd = writeStack({ 'compose.yaml': compose })
    const key = 'canary-host-encryption-key-0123456789abcdef'
    const result = await check(cwd, {
      environment: { API_TOKEN: key, APP_KEY: 'canary-host-db-url' },
      serverSettings: [key, 'canary-host-db-url'],
    })
    expect(findings(result, origins)).toEqual([
      'error server_setting_in_stack API_TOKEN',
      'error server_setting_in_stack APP_KEY',
      'warning secret_not_from_vault ADMIN_PASSWORD',
      'warning secret_not_from_vault DATABASE_URL',
    ])
    expect(result.ok).toBe(false)
    expect(JSON.stringify(result) + formatRenderReport(result, cwd)).not.toContain('canary')
  })

  it("the vault server's own stack may hold its settings under their names (--allow-env)", async () => {
    const cwd = writeStack({
      'compose.yaml':
        'services:\n  vault:\n    image: v\n    environment:\n      ENCRYPTION_KEY: ${ENCRYPTION_KEY}\n',
    })
    const result = await check(cwd, {
      environment: { ENCRYPTION_KEY: 'k'.repeat(64) },
      serverSettings: ['k'.repeat(64)],
    })
    expect(findings(result, ['server_setting_in_stack'])).toEqual([])
  })

  it.each([
    ['DB_PASSWORD', 'x', true],
    ['MINIO_ROOT_PASSWORD', 'x', true],
    ['BASIC_AUTH', 'x', true],
    ['HASH_SALT', 'x', true],
    ['POSTGRES_PW', 'x', true],
    ['SMTP_PASS', 'x', true],
    ['COMPASS', 'x', false],
    ['TLS_KEY', '/run/secrets/tls', false],
    ['TLS_KEY', './tls.key', false],
    ['TLS_KEY_FILE', 'tls.key', false],
    ['KEY_PATH', 'tls.key', false],
    ['REDIS_URL', 'redis://:pw@cache', true],
    ['REDIS_URL', 'redis://cache', false],
    ['TZ', 'UTC', false],
  ])('looksSecret(%s, %s) is %s', (name, value, expected) => {
    expect(looksSecret(name, value)).toBe(expected)
  })
})

describe('vault secrets copied inside others', () => {
  const stack = [
    'services:',
    '  db:',
    '    image: postgres',
    '    environment:',
    '      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}',
    '      PIN: ${PIN}',
    '  app:',
    '    image: app',
    '    environment:',
    '      DATABASE_URL: ${DATABASE_URL}',
    '      TEMPLATED_URL: ${TEMPLATED_URL}',
    '      S3_SECRET: ${S3_SECRET}',
    '      HOLDER: ${HOLDER}',
  ].join('\n')
  const canary = 'canary-pg-p@ss/77'
  const values = {
    POSTGRES_PASSWORD: canary,
    DATABASE_URL: `postgresql://app:${encodeURIComponent(canary)}@db/app`,
    TEMPLATED_URL: `postgresql://app:${canary}@db/app`,
    S3_SECRET: canary,
    PIN: 'x1y2z3',
    HOLDER: 'has x1y2z3',
  }
  const layer: SecretLayer = {
    ...staticSecretLayer({ dev: values }),
    templatesNaming: (_environment, name) => (name === 'POSTGRES_PASSWORD' ? ['TEMPLATED_URL'] : []),
  }

  it('warns for each copy that is not a template referencing it, suggests --template, prints no value', async () => {
    const result = await check(writeStack({ 'compose.yaml': stack }), { vaultEnvironment: 'dev' }, layer)
    const copies = result.problems.filter((problem) => problem.code === 'copied_secret')
    expect(copies.map((problem) => problem.message)).toEqual([
      'DATABASE_URL holds a copy of the value of POSTGRES_PASSWORD: a rotation of POSTGRES_PASSWORD would leave it behind; write ${POSTGRES_PASSWORD} in its place (vault secrets set DATABASE_URL --template)',
      'S3_SECRET holds a copy of the value of POSTGRES_PASSWORD: a rotation of POSTGRES_PASSWORD would leave it behind; write ${POSTGRES_PASSWORD} in its place (vault secrets set S3_SECRET --template)',
    ])
    expect(findings(result, ['copy_not_checked'])).toEqual([])
    expect(JSON.stringify(result)).not.toContain('canary')
    expect(JSON.stringify(result)).not.toContain('x1y2z3')
  })

  it('finds no copy where one secret is stored as templates of another whose name sorts after them', async () => {
    const shared = 'canary-minio-5b2e9f0c1d'
    const minio = [
      'services:',
      '  app:',
      '    image: app',
      '    environment:',
      '      A_S3_SECRET_KEY: ${A_S3_SECRET_KEY}',
      '      B_S3_SECRET_KEY: ${B_S3_SECRET_KEY}',
      '  minio:',
      '    image: minio',
      '    environment:',
      '      MINIO_ROOT_PASSWORD: ${MINIO_ROOT_PASSWORD}',
    ].join('\n')
    const templates: SecretLayer = {
      ...staticSecretLayer({
        dev: { A_S3_SECRET_KEY: shared, B_S3_SECRET_KEY: shared, MINIO_ROOT_PASSWORD: shared },
      }),
      templatesNaming: (_environment, name) =>
        name === 'MINIO_ROOT_PASSWORD' ? ['A_S3_SECRET_KEY', 'B_S3_SECRET_KEY'] : [],
    }
    const result = await check(writeStack({ 'compose.yaml': minio }), { vaultEnvironment: 'dev' }, templates)
    expect(findings(result, ['copied_secret'])).toEqual([])
  })

  it('says when a secret-looking value is too short to be compared', async () => {
    const short = staticSecretLayer({
      dev: { ...values, PIN: undefined as never, POSTGRES_PASSWORD: 'short1' },
    })
    const result = await check(writeStack({ 'compose.yaml': stack }), { vaultEnvironment: 'dev' }, short)
    expect(findings(result, ['copy_not_checked'])).toEqual(['info copy_not_checked POSTGRES_PASSWORD'])
    expect(JSON.stringify(result)).not.toContain('short1')
  })
})
