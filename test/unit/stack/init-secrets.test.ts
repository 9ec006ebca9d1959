import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import { baseSecrets } from '../../../src/stack/base-secrets.js'
import { initBaseSecrets, type SecretWriter } from '../../../src/stack/init-secrets.js'

/** An in-memory stand-in for the vault client (unit test only; the integration test uses a real server). */
function memoryWriter(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial))
  const templates = new Set<string>()
  const writer: SecretWriter = {
    listSecrets: async () =>
      [...values].map(([name, value]) => ({ name, value, template: templates.has(name) })),
    putSecret: async (name, value, _environment, options) => {
      values.set(name, value)
      if (options?.template) templates.add(name)
      else templates.delete(name)
    },
  }
  return { writer, values, templates }
}

const inputs: Record<string, string> = {
  DATA_DIR: '/srv/stack',
  STACK_PROJECT_NAME: 'homelab',
  DOMAINNAME: 'example.com',
  GATEWAY_DOMAIN: 'gateway.example.com',
  GATEWAY_TRUSTED_IPS: '10.0.0.0/8',
  PUID: '1000',
  PGID: '1000',
  TZ: 'Europe/Berlin',
  GATEWAY_API_USER: 'admin',
  OBJSTORE_ACCOUNT_ID: 'id',
  OBJSTORE_ACCOUNT_KEY: 'CANARY-objstore-key-91c2',
  BACKUP_REPOSITORY: 'b2:bucket:stack',
}

describe('initBaseSecrets', () => {
  it('writes every required base secret, generating passwords and hex keys', async () => {
    const { writer, values } = memoryWriter()
    const result = await initBaseSecrets(writer, { environment: 'dev', inputs, force: false })
    expect(result.created).toHaveLength(19)
    expect(result.omitted).toEqual(['MESSENGER_BOT_TOKEN', 'MESSENGER_CHAT_ID'])
    expect(values.get('AUTH_JWT_SECRET')).toMatch(/^[0-9a-f]{64}$/)
    expect(values.get('DATABASE_PASSWORD')).toMatch(/^[A-Za-z0-9]{32}$/)
    expect(values.get('DOMAINNAME')).toBe('example.com')
    expect(JSON.stringify(result)).not.toContain('CANARY-objstore-key-91c2')
  })

  it('keeps existing values unless force', async () => {
    const { writer, values } = memoryWriter({ DATABASE_PASSWORD: 'old-password' })
    const kept = await initBaseSecrets(writer, { inputs, force: false })
    expect(kept.kept).toEqual(['DATABASE_PASSWORD'])
    expect(values.get('DATABASE_PASSWORD')).toBe('old-password')
    const forced = await initBaseSecrets(writer, { inputs, force: true })
    expect(forced.overwritten).toContain('DATABASE_PASSWORD')
    expect(values.get('DATABASE_PASSWORD')).not.toBe('old-password')
  })

  it('writes nothing when a required input is missing, and names all of them', async () => {
    const { writer, values } = memoryWriter()
    const { DOMAINNAME: _d, TZ: _t, ...partial } = inputs
    await expect(initBaseSecrets(writer, { inputs: partial, force: false })).rejects.toThrow(
      'missing values for DOMAINNAME, TZ',
    )
    expect(values.size).toBe(0)
  })

  it('writes nothing when an input is invalid', async () => {
    const { writer, values } = memoryWriter()
    await expect(
      initBaseSecrets(writer, { inputs: { ...inputs, BACKUP_REPOSITORY: 'nope' }, force: false }),
    ).rejects.toThrow(UsageError)
    expect(values.size).toBe(0)
  })

  it('asks for missing required inputs when a prompt is available', async () => {
    const { writer, values } = memoryWriter()
    const asked: string[] = []
    const { TZ: _t, ...partial } = inputs
    await initBaseSecrets(writer, {
      inputs: partial,
      force: false,
      prompt: async (spec) => (asked.push(spec.name), 'Europe/Paris'),
    })
    expect(asked).toEqual(['TZ'])
    expect(values.get('TZ')).toBe('Europe/Paris')
  })

  it('refuses a name that is not a base secret', async () => {
    const { writer } = memoryWriter()
    await expect(
      initBaseSecrets(writer, { inputs: { ...inputs, NOT_BASE: 'x' }, force: false }),
    ).rejects.toThrow('not a base secret: NOT_BASE')
  })

  it('covers every catalogue entry', () => {
    expect(new Set(baseSecrets.map((s) => s.name)).size).toBe(baseSecrets.length)
  })
})

describe('secrets init on any stack', () => {
  it('generates the secret-named variables a third-party stack references and asks for the others', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { listVariables, loadComposeProject } = await import('../../../src/compose/index.js')
    const { specsForStack } = await import('../../../src/stack/stack-specs.js')
    const dir = mkdtempSync(join(tmpdir(), 'vault-init-stack-'))
    try {
      writeFileSync(
        join(dir, 'compose.yaml'),
        [
          'services:',
          '  db:',
          '    image: mariadb',
          '    environment:',
          '      MYSQL_ROOT_PASSWORD: ${MYSQL_ROOT_PASSWORD}',
          '      MYSQL_PASSWORD: ${MYSQL_PASSWORD:?}',
          '      MYSQL_USER: ${MYSQL_USER}',
          '      TZ: ${TZ:-UTC}',
          '  app:',
          '    image: wordpress',
          '    environment:',
          '      AUTH_SALT: ${WP_AUTH_SALT}',
          '      API: ${APP_API_KEY}',
          '      T: ${APP_TOKEN}',
          '      P: ${SMTP_PASS}',
          '      HOST: ${WP_HOST}',
          '      CID: ${VAULT_CLIENT_ID:-}',
          '',
        ].join('\n'),
      )
      writeFileSync(join(dir, '.env'), 'WP_HOST=blog.example\n')
      const project = loadComposeProject({ cwd: dir, environment: {}, collectProblems: true })
      const { specs, skipped } = specsForStack(project, listVariables)
      const shapes = Object.fromEntries(specs.map((spec) => [spec.name, spec.source]))
      expect(shapes).toEqual({
        APP_API_KEY: 'hex32',
        APP_TOKEN: 'hex32',
        MYSQL_PASSWORD: 'password',
        MYSQL_ROOT_PASSWORD: 'password',
        MYSQL_USER: 'input',
        SMTP_PASS: 'password',
        WP_AUTH_SALT: 'hex32',
      })
      expect(skipped.map((entry) => entry.name).sort()).toEqual(['TZ', 'VAULT_CLIENT_ID', 'WP_HOST'])
      const { writer, values } = memoryWriter()
      const result = await initBaseSecrets(writer, {
        environment: 'dev',
        inputs: { MYSQL_USER: 'wp' },
        force: false,
        specs,
      })
      expect(result.created).toHaveLength(7)
      expect(values.get('MYSQL_PASSWORD')).toMatch(/^[A-Za-z0-9]{32}$/)
      expect(values.get('WP_AUTH_SALT')).toMatch(/^[0-9a-f]{64}$/)
      expect(values.get('MYSQL_USER')).toBe('wp')
      await expect(
        initBaseSecrets(memoryWriter().writer, { inputs: { NOPE: 'x' }, force: false, specs }),
      ).rejects.toThrow('not referenced by the stack: NOPE')
      await expect(
        initBaseSecrets(memoryWriter().writer, { inputs: {}, force: false, specs }),
      ).rejects.toThrow('missing values for MYSQL_USER')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
