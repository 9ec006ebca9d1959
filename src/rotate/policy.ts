/**
 * Rotation ages: the seed's recommendations (database passwords 90 days, external API keys 180, JWT
 * secrets 180, encryption keys 365, service-to-service tokens 90) matched by name pattern, with
 * user rules (`PATTERN=DAYS`, `*` as wildcard) tried first, and a default age for a secret no rule
 * covers. The one classification of database passwords. Pure functions.
 */
import { UsageError } from '../errors.js'

export interface RotationRule {
  /** What the rule covers, for reports. */
  kind: string
  /** Whether the rule covers a name (a RegExp, or the database password classification). */
  pattern: { test(name: string): boolean }
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

/** A password suffix: `_PASSWORD`, `_PASS`, `_PASSWD`, `_PWD`. */
const passwordSuffix = /_(PASSWORD|PASS|PASSWD|PWD)$/

/**
 * A name part that names a database: one with POSTGRES, MYSQL or MARIADB in it (APP_POSTGRES_PASSWORD,
 * MYSQL_ROOT_PASSWORD), a `_`-separated word that starts or ends with DB (DB_PASSWORD,
 * WORDPRESS_DB_PASSWORD, MONGODB_..., INFLUXDB_...), DATABASE, and the other usual database images'
 * prefixes (PG, REDIS, VALKEY, MONGO, ...).
 */
const databaseWord =
  /POSTGRES|MYSQL|MARIADB|(^|_)(DB[A-Z0-9]*|[A-Z0-9]*DB|DATABASE|PG|REDIS|VALKEY|MONGO|MONGO_INITDB|RABBITMQ|CLICKHOUSE|NEO4J|ELASTIC|MINIO)(_|$)/

/**
 * True when a name is a database password, whose value the database itself also holds (its rotation,
 * and a rollback, must change the database too): a password name (`_PASSWORD`, `_PASS`, `_PASSWD`,
 * `_PWD`) whose other parts name a database. The one place that decides it.
 */
export function isDatabasePassword(name: string): boolean {
  const match = passwordSuffix.exec(name)
  return match !== null && databaseWord.test(name.slice(0, match.index + 1))
}

/** The built-in rotator a database password's name points at (`--rotator`), when it names one. */
export function rotatorHintFor(name: string): 'postgres' | 'mysql' | undefined {
  if (!isDatabasePassword(name)) return undefined
  if (/POSTGRES|(^|_)PG_/.test(name)) return 'postgres'
  if (/MYSQL|MARIADB/.test(name)) return 'mysql'
  return undefined
}

/** The kind a secret no rule covers shows as. */
export const noRuleKind = 'no rule'

/**
 * The age a secret no rule covers is held to (the longest recommended age: even a setting nobody
 * classified gets looked at once a year); `--max-age '*=DAYS'` overrides it.
 */
export const defaultMaxAgeDays = 365

/** The seed's recommended ages, first match wins. */
export const defaultRotationRules: RotationRule[] = [
  { kind: 'encryption key', pattern: /ENCRYPTION_KEY$/, maxAgeDays: 365 },
  { kind: 'JWT secret', pattern: /(JWT_SECRET|JWT_KEY|SESSION_SECRET)$/, maxAgeDays: 180 },
  { kind: 'database password', pattern: { test: isDatabasePassword }, maxAgeDays: 90 },
  { kind: 'external API key', pattern: /(_API_KEY|_ACCOUNT_KEY|_BOT_TOKEN)$/, maxAgeDays: 180 },
  { kind: 'service token', pattern: /_TOKEN$/, maxAgeDays: 90 },
  { kind: 'password', pattern: /(^|_)(PASSWORD|PASS|PASSWD)$/, maxAgeDays: 180 },
]

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

/**
 * Age reports of every secret, oldest first: the first rule that covers it sets its kind and age, and
 * one no rule covers shows as `no rule` with the default age; `due` when older than its age allows.
 */
export function rotationReport(secrets: AgedSecret[], rules: RotationRule[], now = Date.now()): DueReport[] {
  const reports: DueReport[] = secrets.map((secret) => {
    const rule = ruleFor(secret.name, rules)
    const maxAgeDays = rule?.maxAgeDays ?? defaultMaxAgeDays
    const ageDays = Math.floor((now - Date.parse(secret.updatedAt)) / 86_400_000)
    return {
      name: secret.name,
      kind: rule?.kind ?? noRuleKind,
      updatedAt: secret.updatedAt,
      ageDays,
      maxAgeDays,
      due: ageDays >= maxAgeDays,
    }
  })
  return reports.sort((a, b) => b.ageDays - a.ageDays || a.name.localeCompare(b.name))
}
