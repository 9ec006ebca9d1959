import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { listVariables, loadComposeProject } from '../../../src/compose/index.js'
import { initBaseSecrets, type SecretWriter } from '../../../src/stack/init-secrets.js'
import { specsForStack } from '../../../src/stack/stack-specs.js'
import { resolvedValues } from '../../../src/client/resolve-templates.js'

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/stacks/${name}`, import.meta.url))

function memoryWriter(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial))
  const templates = new Set<string>()
  const writer: SecretWriter = {
    listSecrets: async () =>
      [...values].map(([name, value]) => ({ name, value, template: templates.has(name) })),
    putSecret: async (name, value, _environment, options) => {
      values.set(name, value)
      if (options?.template) templates.add(name)
    },
  }
  const stored = () => [...values].map(([name, value]) => ({ name, value, template: templates.has(name) }))
  return { writer, values, templates, stored }
}

async function planOf(stack: string, initial: Record<string, string> = {}, dryRun = true) {
  const project = loadComposeProject({ cwd: fixture(stack), environment: {}, collectProblems: true })
  const { specs, skipped } = specsForStack(project, listVariables)
  const memory = memoryWriter(initial)
  const result = await initBaseSecrets(memory.writer, { inputs: {}, force: false, dryRun, specs, skipped })
  const plan = Object.fromEntries(result.plan.map((entry) => [entry.name, entry]))
  return { result, plan, memory }
}

const actions = (plan: Record<string, { action: string }>) =>
  Object.fromEntries(Object.entries(plan).map(([name, entry]) => [name, entry.action]))

describe('secrets init plan for langfuse (issue 35: its published docker-compose.yml)', () => {
  it('generates the CHANGEME secrets, templates the values that must match, skips the rest with why', async () => {
    const { plan, memory } = await planOf('langfuse')
    expect(memory.values.size).toBe(0)
    const byAction = (action: string) =>
      Object.values(plan)
        .filter((entry) => entry.action === action)
        .map((entry) => entry.name)
        .sort()
    expect(byAction('generate')).toEqual([
      'CLICKHOUSE_PASSWORD',
      'ENCRYPTION_KEY',
      'MINIO_ROOT_PASSWORD',
      'NEXTAUTH_SECRET',
      'POSTGRES_PASSWORD',
      'REDIS_AUTH',
      'SALT',
    ])
    expect(byAction('template')).toEqual([
      'DATABASE_URL',
      'LANGFUSE_S3_BATCH_EXPORT_SECRET_ACCESS_KEY',
      'LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY',
      'LANGFUSE_S3_MEDIA_UPLOAD_SECRET_ACCESS_KEY',
    ])
    expect(byAction('input')).toEqual([])
    expect(plan.DATABASE_URL!.template).toBe(
      'postgresql://postgres:${POSTGRES_PASSWORD}@postgres:5432/postgres',
    )
    expect(plan.LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY!.template).toBe('${MINIO_ROOT_PASSWORD}')
    expect(plan.REDIS_AUTH!.reason).toContain('command line of redis')
    expect(plan.SALT!.reason).toBe('its default is a published placeholder')
    expect(plan).toMatchObject({
      REDIS_TLS_KEY: { action: 'skip', reason: 'a path' },
      REDIS_TLS_CA: { action: 'skip', reason: 'a path' },
      LANGFUSE_INIT_PROJECT_SECRET_KEY: { action: 'skip', reason: 'optional: empty by default' },
      LANGFUSE_INIT_USER_PASSWORD: { action: 'skip', reason: 'optional: empty by default' },
      SMTP_CONNECTION_URL: { action: 'skip', reason: 'optional: empty by default' },
      LANGFUSE_INIT_PROJECT_PUBLIC_KEY: { action: 'skip', reason: 'optional: empty by default' },
      NEXTAUTH_URL: { action: 'skip', reason: 'a URL without credentials' },
      TELEMETRY_ENABLED: { action: 'skip', reason: 'a boolean' },
      REDIS_PORT: { action: 'skip', reason: 'a number' },
      LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID: { action: 'skip', reason: 'has a default' },
      MINIO_ROOT_USER: { action: 'skip', reason: 'has a default' },
    })
  })

  it('writes them so that related values resolve equal and keep the published shape', async () => {
    const { memory, result } = await planOf('langfuse', {}, false)
    expect(result.created).toHaveLength(11)
    const values = resolvedValues(memory.stored())
    expect(values.ENCRYPTION_KEY).toMatch(/^[0-9a-f]{64}$/)
    expect(values.ENCRYPTION_KEY).not.toBe('0'.repeat(64))
    expect(values.SALT).toMatch(/^[0-9a-f]{64}$/)
    expect(values.REDIS_AUTH).toMatch(/^[A-Za-z0-9]{32}$/)
    expect(values.LANGFUSE_S3_MEDIA_UPLOAD_SECRET_ACCESS_KEY).toBe(values.MINIO_ROOT_PASSWORD)
    expect(values.LANGFUSE_S3_BATCH_EXPORT_SECRET_ACCESS_KEY).toBe(values.MINIO_ROOT_PASSWORD)
    expect(values.DATABASE_URL).toBe(
      `postgresql://postgres:${values.POSTGRES_PASSWORD}@postgres:5432/postgres`,
    )
    expect(memory.templates).toEqual(
      new Set([
        'DATABASE_URL',
        'LANGFUSE_S3_BATCH_EXPORT_SECRET_ACCESS_KEY',
        'LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY',
        'LANGFUSE_S3_MEDIA_UPLOAD_SECRET_ACCESS_KEY',
      ]),
    )
  })

  it('keeps a value the vault holds, replaces one that is the published default', async () => {
    const { plan } = await planOf('langfuse', { POSTGRES_PASSWORD: 'CANARY-real-pg-5d1e', SALT: 'mysalt' })
    expect(plan.POSTGRES_PASSWORD).toMatchObject({ action: 'keep' })
    expect(plan.SALT).toMatchObject({ action: 'generate' })
    expect(plan.SALT!.reason).toMatch(/^the vault holds the published value/)
    expect(plan.DATABASE_URL).toMatchObject({ action: 'template' })
    expect(JSON.stringify(plan)).not.toContain('CANARY')
  })
})

describe('secrets init plan for immich (its published docker-compose.yml and example.env)', () => {
  it('fills nothing the project env file sets, and names the published placeholder', async () => {
    const { plan, memory } = await planOf('immich')
    expect(memory.values.size).toBe(0)
    expect(actions(plan)).toEqual({
      DB_DATABASE_NAME: 'skip',
      DB_DATA_LOCATION: 'skip',
      DB_PASSWORD: 'skip',
      DB_USERNAME: 'skip',
      IMMICH_VERSION: 'skip',
      UPLOAD_LOCATION: 'skip',
    })
    expect(plan.DB_PASSWORD!.reason).toBe(
      'set in the project env file to a published placeholder: vault secrets import --move it, then vault secrets init replaces it',
    )
    expect(plan.DB_USERNAME!.reason).toBe('set in the project env file (vault secrets import moves it)')
  })
})

describe('secrets init plan for authentik (its published docker-compose.yml, a settings-only .env)', () => {
  const planFor = async (compose: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-authentik-plan-'))
    try {
      writeFileSync(join(dir, 'docker-compose.yml'), compose)
      writeFileSync(join(dir, '.env'), 'AUTHENTIK_ERROR_REPORTING__ENABLED=true\n')
      const project = loadComposeProject({ cwd: dir, environment: {}, collectProblems: true })
      const { specs, skipped } = specsForStack(project, listVariables)
      const result = await initBaseSecrets(memoryWriter().writer, {
        inputs: {},
        force: false,
        dryRun: true,
        specs,
        skipped,
      })
      return Object.fromEntries(result.plan.map((entry) => [entry.name, entry]))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const published = readFileSync(join(fixture('authentik'), 'docker-compose.yml'), 'utf8')

  it("generates the two secrets; its own COMPOSE_PORT_ variables are its settings, not compose's", async () => {
    const plan = await planFor(published)
    expect(actions(plan)).toEqual({
      AUTHENTIK_IMAGE: 'skip',
      AUTHENTIK_SECRET_KEY: 'generate',
      AUTHENTIK_TAG: 'skip',
      COMPOSE_PORT_HTTP: 'skip',
      COMPOSE_PORT_HTTPS: 'skip',
      PG_DB: 'skip',
      PG_PASS: 'generate',
      PG_USER: 'skip',
    })
    expect(plan.COMPOSE_PORT_HTTP!.reason).toBe('a number')
    expect(plan.PG_PASS!.reason).toBe('required (${X:?}), no default')
  })

  it("asks for a stack variable named COMPOSE_ without a default; skips compose's own", async () => {
    const plan = await planFor(
      published
        .replace('${COMPOSE_PORT_HTTP:-9000}', '${COMPOSE_PORT_HTTP}')
        .replace('command: server', 'command: server ${COMPOSE_PROJECT_NAME}'),
    )
    expect(plan.COMPOSE_PORT_HTTP).toMatchObject({
      action: 'input',
      reason: 'required, no default: --set, --values-file or a prompt',
    })
    expect(plan.COMPOSE_PROJECT_NAME).toMatchObject({ action: 'skip', reason: 'a compose setting' })
  })
})
