/**
 * Rotation ages: the seed's recommendations (database passwords 90 days, external API keys 180, JWT
 * secrets 180, encryption keys 365, service-to-service tokens 90) matched by name pattern, with
 * user rules (`PATTERN=DAYS`, `*` as wildcard) tried first. Pure functions.
 */
import { UsageError } from '../errors.js'

export interface RotationRule {
  /** What the rule covers, for reports. */
  kind: string
  pattern: RegExp
  maxAgeDays: number
}

export interface AgedSecret {
  name: string
  updatedAt: string
}

export interface DueReport {
  name: string
  kind: string
  updatedAt: string
  ageDays: number
  maxAgeDays: number
  due: boolean
}

/**
 * Database passwords under the names stacks use: the seed's DATABASE_/DB_ ones and those of the usual
 * database images (MYSQL_ROOT_PASSWORD, MARIADB_PASSWORD, POSTGRES_PASSWORD, REDIS_PASSWORD, ...).
 */
const databasePassword =
  /((^|_)(DATABASE|DB)_PASSWORD|^(MYSQL|MARIADB|POSTGRES|POSTGRESQL|PG|REDIS|VALKEY|MONGO|MONGODB|MONGO_INITDB|RABBITMQ|INFLUXDB|CLICKHOUSE|COUCHDB|NEO4J|ELASTIC|MINIO|KEYDB)(_[A-Z0-9]+)*_(PASSWORD|PASS|PASSWD|PWD))$/

/** The seed's recommended ages, first match wins. */
export const defaultRotationRules: RotationRule[] = [
  { kind: 'encryption key', pattern: /ENCRYPTION_KEY$/, maxAgeDays: 365 },
  { kind: 'JWT secret', pattern: /(JWT_SECRET|JWT_KEY|SESSION_SECRET)$/, maxAgeDays: 180 },
  { kind: 'database password', pattern: databasePassword, maxAgeDays: 90 },
  { kind: 'external API key', pattern: /(_API_KEY|_ACCOUNT_KEY|_BOT_TOKEN)$/, maxAgeDays: 180 },
  { kind: 'service token', pattern: /_TOKEN$/, maxAgeDays: 90 },
  { kind: 'password', pattern: /(^|_)(PASSWORD|PASS|PASSWD)$/, maxAgeDays: 180 },
]

/** True when a name looks like a database password (its rotation must change the database too). */
export function isDatabasePassword(name: string): boolean {
  return databasePassword.test(name)
}

/** Parses `PATTERN=DAYS` overrides (`*_PASSWORD=30`); they come before the defaults. */
export function parseRuleOverrides(overrides: string[]): RotationRule[] {
  return overrides.map((override) => {
    const match = /^([A-Z0-9_*]+)=(\d+)$/.exec(override)
    if (!match)
      throw new UsageError(`invalid rotation rule ${JSON.stringify(override)}`, {
        hint: 'use PATTERN=DAYS, e.g. *_PASSWORD=30',
      })
    const pattern = new RegExp(`^${match[1]!.replaceAll('*', '[A-Z0-9_]*')}$`)
    return { kind: `rule ${match[1]}`, pattern, maxAgeDays: Number(match[2]) }
  })
}

/** The rule that applies to `name`, if any. */
export function ruleFor(name: string, rules: RotationRule[]): RotationRule | undefined {
  return rules.find((rule) => rule.pattern.test(name))
}

/** Age reports of the secrets a rule covers, oldest first; `due` when older than the rule allows. */
export function rotationReport(secrets: AgedSecret[], rules: RotationRule[], now = Date.now()): DueReport[] {
  const reports: DueReport[] = []
  for (const secret of secrets) {
    const rule = ruleFor(secret.name, rules)
    if (!rule) continue
    const ageDays = Math.floor((now - Date.parse(secret.updatedAt)) / 86_400_000)
    reports.push({
      name: secret.name,
      kind: rule.kind,
      updatedAt: secret.updatedAt,
      ageDays,
      maxAgeDays: rule.maxAgeDays,
      due: ageDays >= rule.maxAgeDays,
    })
  }
  return reports.sort((a, b) => b.ageDays - a.ageDays)
}
