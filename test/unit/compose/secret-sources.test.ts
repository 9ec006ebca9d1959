/**
 * Compose secrets with an `environment:` source count as uses of the variable, in the one reference
 * index that render --who-uses, render --check (v1 keys, unused secrets), rotate's restart plan and
 * secrets import's SERVICES column all read; and --who-uses follows the vault templates naming it.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { servicesOf, usersOf } from '../../../src/compose/references.js'
import { renderStack, type CheckedStack, type VariableUsers } from '../../../src/compose/render.js'
import { formatRenderReport } from '../../../src/compose/report.js'
import { staticSecretLayer, type SecretLayer } from '../../../src/compose/secret-layer.js'
import { servicesUsing } from '../../../src/stack/stack-users.js'
import { loadStack, writeStack } from '../../helpers/compose-stack.js'

const sourced = [
  'services:',
  '  db:',
  '    image: postgres',
  '    environment:',
  '      POSTGRES_PASSWORD_FILE: /run/secrets/db_password',
  '    secrets:',
  '      - db_password',
  '  app:',
  '    image: app',
  '    secrets:',
  '      - source: db_password',
  '        target: pw',
  '      - source: api_key',
  '  worker:',
  '    image: worker',
  'secrets:',
  '  db_password:',
  '    environment: DB_PASSWORD',
  '  api_key:',
  '    environment: API_KEY',
  '  tls:',
  '    file: ./tls.pem',
].join('\n')

describe('compose secrets with an environment: source', () => {
  it('are uses of the variable, for each service that mounts the secret', () => {
    const { cwd, project } = loadStack({ 'compose.yaml': sourced }, { environment: { DB_PASSWORD: 'x' } })
    const file = join(cwd, 'compose.yaml')
    expect(usersOf(project, 'DB_PASSWORD')).toEqual([
      { service: 'app', field: 'secrets.0', file, line: 11 },
      { service: 'db', field: 'secrets.0', file, line: 7 },
    ])
    expect(servicesOf(usersOf(project, 'API_KEY'))).toEqual(['app'])
    expect(servicesUsing(project, ['DB_PASSWORD', 'API_KEY', 'TLS'])).toEqual({
      DB_PASSWORD: ['app', 'db'],
      API_KEY: ['app'],
      TLS: [],
    })
  })

  it('pass render --check with docker-compose v1 (vault run rewrites them) and count as used', async () => {
    const cwd = writeStack({ 'compose.yaml': sourced, 'tls.pem': 'x' })
    const layer = staticSecretLayer({
      dev: { DB_PASSWORD: 'canary-db-password-1', API_KEY: 'canary-api-key-22' },
    })
    const result = (await renderStack(
      { mode: 'check', cwd, environment: {}, vaultEnvironment: 'dev', composeClient: 'v1' },
      layer,
    )) as CheckedStack
    expect(result.problems).toEqual([])
    expect(result.ok).toBe(true)
  })

  it('an unset source variable is an error of render --check (vault run would refuse the stack)', async () => {
    const cwd = writeStack({ 'compose.yaml': sourced, 'tls.pem': 'x' })
    const layer = staticSecretLayer({ dev: { DB_PASSWORD: 'canary-db-password-1' } })
    const result = (await renderStack(
      { mode: 'check', cwd, environment: {}, vaultEnvironment: 'dev', composeClient: 'v2' },
      layer,
    )) as CheckedStack
    expect(result.problems).toEqual([
      {
        level: 'error',
        code: 'required_variable',
        message:
          'compose secret api_key takes its value from API_KEY, which is not set: vault secrets set API_KEY',
        variable: 'API_KEY',
      },
    ])
  })

  it('a secret of another name is still an unknown key for v1', async () => {
    const cwd = writeStack({
      'compose.yaml': 'services:\n  a:\n    image: a\nsecrets:\n  s:\n    environment: S\n    bogus: 1\n',
    })
    const result = (await renderStack({
      mode: 'check',
      cwd,
      environment: {},
      composeClient: 'v1',
    })) as CheckedStack
    expect(result.problems.map((problem) => problem.code)).toEqual(['v1_refused_key'])
    expect(result.problems[0]!.message).toContain('secrets.s.bogus')
  })

  it.each(['__proto__', 'constructor', 'toString'])('a secret named %s is handled as any other', (name) => {
    const text = `services:\n  a:\n    image: a\n    secrets: [${name}]\nsecrets:\n  ${name}:\n    environment: V\n`
    const { project } = loadStack({ 'compose.yaml': text }, { environment: { V: 'x' } })
    expect(servicesOf(usersOf(project, 'V'))).toEqual(['a'])
    expect(servicesOf(usersOf(project, 'constructor'))).toEqual([])
  })
})

describe('render --who-uses through templates', () => {
  const compose = [
    'services:',
    '  db:',
    '    image: postgres',
    '    environment:',
    '      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}',
    '  app:',
    '    image: app',
    '    environment:',
    '      DATABASE_URL: ${DATABASE_URL}',
    '  admin:',
    '    image: admin',
    '    env_file: admin.env',
    '  other:',
    '    image: other',
  ].join('\n')
  const layer: SecretLayer = {
    ...staticSecretLayer({ dev: {} }),
    templatesNaming: (environment, name) =>
      environment === 'dev' && name === 'POSTGRES_PASSWORD' ? ['ADMIN_URL', 'DATABASE_URL'] : [],
  }

  it('lists the users of the templates naming the variable, marked with the template', async () => {
    const cwd = writeStack({ 'compose.yaml': compose, 'admin.env': 'ADMIN_URL\n' })
    const result = (await renderStack(
      { mode: 'who-uses', cwd, environment: {}, vaultEnvironment: 'dev', variable: 'POSTGRES_PASSWORD' },
      layer,
    )) as VariableUsers
    const file = join(cwd, 'compose.yaml')
    expect(result.references).toEqual([
      { service: 'admin', field: 'env_file', file: join(cwd, 'admin.env'), line: 1, through: 'ADMIN_URL' },
      { service: 'app', field: 'environment.DATABASE_URL', file, line: 9, through: 'DATABASE_URL' },
      { service: 'db', field: 'environment.POSTGRES_PASSWORD', file, line: 5 },
    ])
    expect(formatRenderReport(result, cwd)).toContain('THROUGH TEMPLATE')
    expect(formatRenderReport(result, cwd)).toMatch(
      /app\s+environment\.DATABASE_URL\s+compose\.yaml:9\s+DATABASE_URL/,
    )
  })

  it('without --env knows no template', async () => {
    const cwd = writeStack({ 'compose.yaml': compose, 'admin.env': 'ADMIN_URL\n' })
    const result = (await renderStack(
      { mode: 'who-uses', cwd, environment: {}, variable: 'POSTGRES_PASSWORD' },
      layer,
    )) as VariableUsers
    expect(servicesOf(result.references)).toEqual(['db'])
    expect(formatRenderReport(result, cwd)).not.toContain('THROUGH')
  })
})

describe('render --who-uses and rotate recreate the same services', () => {
  const stack = [
    'services:',
    '  db:',
    '    image: postgres',
    '    secrets: [db_password]',
    '  app:',
    '    image: app',
    '    environment:',
    '      DATABASE_URL: ${DATABASE_URL}',
    '  jobs:',
    '    image: jobs',
    '    env_file: jobs.env',
    '  idle:',
    '    image: idle',
    'secrets:',
    '  db_password:',
    '    environment: POSTGRES_PASSWORD',
  ].join('\n')
  const templates: Record<string, string[]> = {
    POSTGRES_PASSWORD: ['DATABASE_URL', 'JOBS_URL'],
    DATABASE_URL: [],
    JOBS_URL: [],
  }
  const layer: SecretLayer = {
    ...staticSecretLayer({ dev: {} }),
    templatesNaming: (_environment, name) => templates[name] ?? [],
  }

  it.each(Object.keys(templates))('%s', async (name) => {
    const { planRestart } = await import('../../../src/rotate/restart.js')
    const stackDir = writeStack({ 'compose.yaml': stack, 'jobs.env': 'JOBS_URL\n' })
    const secrets = { POSTGRES_PASSWORD: 'p', DATABASE_URL: 'u', JOBS_URL: 'j' }
    const plan = await planRestart({ name, through: templates[name], secrets, stackDir })
    const users = (await renderStack(
      { mode: 'who-uses', cwd: stackDir, environment: {}, vaultEnvironment: 'dev', variable: name },
      layer,
    )) as VariableUsers
    expect(plan.services).toEqual(servicesOf(users.references))
    if (name === 'POSTGRES_PASSWORD') expect(plan.services).toEqual(['app', 'db', 'jobs'])
  })
})
