import { describe, expect, it } from 'vitest'
import { newValueFor, valueShapeFor } from '../../../src/crypto/new-value.js'
import {
  defaultMaxAgeDays,
  defaultRotationRules,
  isDatabasePassword,
  parseRuleOverrides,
  rotatorHintFor,
  rotationReport,
  ruleFor,
} from '../../../src/rotate/policy.js'

const day = 86_400_000
const now = Date.parse('2026-11-22T00:00:00Z')
const ago = (days: number) => new Date(now - days * day).toISOString()

describe('rotation rules', () => {
  it.each([
    ['DATABASE_PASSWORD', 90],
    ['AUTH_DB_PASSWORD', 90],
    ['NEXTCLOUD_DB_PASSWORD', 90],
    ['AUTH_JWT_SECRET', 180],
    ['AUTH_SESSION_SECRET', 180],
    ['AUTH_STORAGE_ENCRYPTION_KEY', 365],
    ['OBJSTORE_ACCOUNT_KEY', 180],
    ['WEATHER_API_KEY', 180],
    ['MESSENGER_BOT_TOKEN', 180],
    ['GRAFANA_SERVICE_TOKEN', 90],
    ['TZ', undefined],
    ['GATEWAY_API_USER', undefined],
  ])('%s -> %s days', (name, days) => {
    expect(ruleFor(name, defaultRotationRules)?.maxAgeDays).toBe(days)
  })

  it('puts overrides before the defaults', () => {
    const rules = [...parseRuleOverrides(['*_PASSWORD=30']), ...defaultRotationRules]
    expect(ruleFor('DATABASE_PASSWORD', rules)?.maxAgeDays).toBe(30)
    expect(ruleFor('BACKUP_PASSWORD', rules)?.maxAgeDays).toBe(30)
  })

  it.each(['*_PASSWORD', 'X=abc', 'lower=3'])('refuses the override %j', (override) => {
    expect(() => parseRuleOverrides([override])).toThrow(/invalid rotation rule/)
  })

  it('lists every secret: one no rule covers shows as "no rule" with the default age', () => {
    const report = rotationReport(
      [
        { name: 'TZ', updatedAt: ago(defaultMaxAgeDays - 1) },
        { name: 'GATEWAY_API_USER', updatedAt: ago(defaultMaxAgeDays) },
        { name: 'DATABASE_PASSWORD', updatedAt: ago(1) },
      ],
      defaultRotationRules,
      now,
    )
    expect(defaultMaxAgeDays).toBe(365)
    expect(report).toEqual([
      {
        name: 'GATEWAY_API_USER',
        kind: 'no rule',
        updatedAt: ago(365),
        ageDays: 365,
        maxAgeDays: 365,
        due: true,
      },
      { name: 'TZ', kind: 'no rule', updatedAt: ago(364), ageDays: 364, maxAgeDays: 365, due: false },
      {
        name: 'DATABASE_PASSWORD',
        kind: 'database password',
        updatedAt: ago(1),
        ageDays: 1,
        maxAgeDays: 90,
        due: false,
      },
    ])
  })

  it('a catch-all override replaces the default age', () => {
    const rules = [...parseRuleOverrides(['*=30']), ...defaultRotationRules]
    const [report] = rotationReport([{ name: 'TZ', updatedAt: ago(31) }], rules, now)
    expect(report).toMatchObject({ kind: 'rule *', maxAgeDays: 30, due: true })
  })

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'a secret named %s is listed like any other',
    (name) => {
      const [report] = rotationReport([{ name, updatedAt: ago(2) }], defaultRotationRules, now)
      expect(report).toMatchObject({ name, kind: 'no rule', maxAgeDays: 365, due: false })
    },
  )

  it('reports due secrets oldest first', () => {
    const report = rotationReport(
      [
        { name: 'DATABASE_PASSWORD', updatedAt: ago(91) },
        { name: 'AUTH_JWT_SECRET', updatedAt: ago(10) },
        { name: 'AUTH_STORAGE_ENCRYPTION_KEY', updatedAt: ago(400) },
        { name: 'TZ', updatedAt: ago(1000) },
      ],
      defaultRotationRules,
      now,
    )
    expect(report.map((entry) => [entry.name, entry.due])).toEqual([
      ['TZ', true],
      ['AUTH_STORAGE_ENCRYPTION_KEY', true],
      ['DATABASE_PASSWORD', true],
      ['AUTH_JWT_SECRET', false],
    ])
  })
})

describe('new values', () => {
  it.each([
    ['AUTH_JWT_SECRET', 'hex32', /^[0-9a-f]{64}$/],
    ['AUTH_STORAGE_ENCRYPTION_KEY', 'hex32', /^[0-9a-f]{64}$/],
    ['DATABASE_PASSWORD', 'password', /^[A-Za-z0-9]{32}$/],
    ['GATEWAY_API_PASSWORD', 'password', /^[A-Za-z0-9]{32}$/],
  ])('%s is a %s', (name, shape, pattern) => {
    expect(valueShapeFor(name)).toBe(shape)
    expect(newValueFor(name)).toMatch(pattern)
    expect(newValueFor(name)).not.toBe(newValueFor(name))
  })

  it('honours --length', () => {
    expect(newValueFor('DATABASE_PASSWORD', 48)).toHaveLength(48)
  })
})

describe('the usual database names are covered by default', () => {
  it.each([
    ['MYSQL_ROOT_PASSWORD', 'database password'],
    ['MYSQL_PASSWORD', 'database password'],
    ['MARIADB_PASSWORD', 'database password'],
    ['MARIADB_ROOT_PASSWORD', 'database password'],
    ['POSTGRES_PASSWORD', 'database password'],
    ['REDIS_PASSWORD', 'database password'],
    ['DB_PASSWORD', 'database password'],
    ['SMTP_PASSWORD', 'password'],
    ['MYSQL_USER', undefined],
    ['MYSQL_DATABASE', undefined],
  ])('%s: %s', async (name, kind) => {
    const { defaultRotationRules, isDatabasePassword, ruleFor } =
      await import('../../../src/rotate/policy.js')
    expect(ruleFor(name, defaultRotationRules)?.kind).toBe(kind)
    expect(isDatabasePassword(name)).toBe(kind === 'database password')
  })
})

describe('database passwords: one classification', () => {
  it.each([
    // *POSTGRES*, *MYSQL*, *MARIADB* and *DB* names ending in a password suffix
    ['POSTGRES_PASSWORD', 'postgres'],
    ['POSTGRESQL_PASSWORD', 'postgres'],
    ['APP_POSTGRES_PASSWORD', 'postgres'],
    ['AUTHENTIK_POSTGRESQL_PASSWORD', 'postgres'],
    ['PG_PASSWORD', 'postgres'],
    ['MYSQL_ROOT_PASSWORD', 'mysql'],
    ['WORDPRESS_MYSQL_PASSWORD', 'mysql'],
    ['MARIADB_PASSWORD', 'mysql'],
    ['NEXTCLOUD_MARIADB_PASS', 'mysql'],
    ['DB_PASSWORD', undefined],
    ['DATABASE_PASSWORD', undefined],
    ['AUTH_DB_PASSWORD', undefined],
    ['WORDPRESS_DB_PASSWORD', undefined],
    ['DB_ROOT_PASSWORD', undefined],
    ['MONGODB_PASSWORD', undefined],
    ['MONGO_INITDB_ROOT_PASSWORD', undefined],
    ['INFLUXDB_ADMIN_PASSWORD', undefined],
    ['REDIS_PASSWORD', undefined],
    ['DB_PWD', undefined],
  ])('%s is a database password (rotator hint %s)', (name, rotator) => {
    expect(isDatabasePassword(name)).toBe(true)
    expect(rotatorHintFor(name)).toBe(rotator)
    expect(ruleFor(name, defaultRotationRules)?.kind).toBe('database password')
  })

  it.each([
    'SMTP_PASSWORD',
    'GATEWAY_API_PASSWORD',
    'BACKUP_PASSWORD',
    'PASSWORD',
    'POSTGRES_USER',
    'POSTGRES_DB',
    'MYSQL_DATABASE',
    'DB_HOST',
    'FEEDBACK_PASSWORD',
    'PGADMIN_DEFAULT_PASSWORD',
    'POSTGRES_PASSWORD_FILE',
    'ADMIN_PASSWORD_DB',
    '__proto___PASSWORD',
    'constructor',
  ])('%s is not', (name) => {
    expect(isDatabasePassword(name)).toBe(false)
    expect(rotatorHintFor(name)).toBeUndefined()
  })
})
