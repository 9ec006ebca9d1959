/**
 * Compose's merge rules, used both for several `-f` files and for `extends`: mappings merge key by
 * key, `environment`/`labels`/... merge as maps whatever their syntax, `command`/`entrypoint`/
 * `healthcheck.test` are replaced, lists such as `ports` are appended without duplicates, and
 * `volumes`/`devices`/`secrets`/`configs` are merged by their target (a secret's default target being
 * /run/secrets/SOURCE, a config's /SOURCE).
 */
import { asRecord, setEntry } from './interpolate-model.js'

type Model = Record<string, unknown>

const mapFields = new Set([
  'environment',
  'labels',
  'annotations',
  'sysctls',
  'extra_hosts',
  'depends_on',
  'networks',
  'ulimits',
  'storage_opt',
])
const replacedFields = new Set(['command', 'entrypoint', 'image', 'container_name', 'user', 'working_dir'])
const appendedFields = new Set([
  'ports',
  'expose',
  'external_links',
  'dns',
  'dns_search',
  'dns_opt',
  'tmpfs',
  'env_file',
  'cap_add',
  'cap_drop',
  'security_opt',
  'group_add',
  'profiles',
  'links',
  'volumes_from',
])
const keyedListFields: Record<string, (entry: unknown) => string> = {
  volumes: (entry) =>
    typeof entry === 'string' ? (entry.split(':')[1] ?? entry) : String(asRecord(entry).target),
  devices: (entry) =>
    typeof entry === 'string'
      ? (entry.split(':')[1] ?? entry)
      : String(asRecord(entry).target ?? asRecord(entry).source),
  secrets: (entry) => mountTarget('/run/secrets', entry),
  configs: (entry) => mountTarget('', entry),
}

/** Where a secret or config is mounted: compose-go's unique key (`mountIndexer` in override/uncity.go). */
function mountTarget(directory: string, entry: unknown): string {
  if (typeof entry === 'string') return `${directory}/${entry}`
  const record = asRecord(entry)
  return record.target !== undefined ? String(record.target) : `${directory}/${String(record.source)}`
}

/** `KEY=value` lists and `KEY: value` maps as one map; a bare `KEY` maps to null. */
export function listToMap(value: unknown, separator = '='): Record<string, unknown> {
  if (!Array.isArray(value)) return { ...asRecord(value) }
  const result: Record<string, unknown> = {}
  for (const entry of value) {
    const text = String(entry)
    const index = text.indexOf(separator)
    if (index === -1) setEntry(result, text, null)
    else setEntry(result, text.slice(0, index), text.slice(index + separator.length))
  }
  return result
}

function mapOf(field: string, value: unknown): Record<string, unknown> {
  if (field === 'extra_hosts')
    return listToMap(value, Array.isArray(value) && String(value[0]).includes('=') ? '=' : ':')
  if ((field === 'depends_on' || field === 'networks') && Array.isArray(value)) {
    return Object.fromEntries(value.map((name) => [String(name), null]))
  }
  return listToMap(value)
}

function uniqueAppend(base: unknown, override: unknown): unknown[] {
  const list = [...toList(base)]
  const seen = new Set(list.map((entry) => JSON.stringify(entry)))
  for (const entry of toList(override)) if (!seen.has(JSON.stringify(entry))) list.push(entry)
  return list
}

function toList(value: unknown): unknown[] {
  if (value === undefined || value === null) return []
  return Array.isArray(value) ? value : [value]
}

function mergeByKey(base: unknown, override: unknown, keyOf: (entry: unknown) => string): unknown[] {
  const merged = new Map<string, unknown>()
  for (const entry of toList(base)) merged.set(keyOf(entry), entry)
  for (const entry of toList(override)) merged.set(keyOf(entry), entry)
  return [...merged.values()]
}

function deepMerge(base: unknown, override: unknown): unknown {
  if (override === undefined) return base
  const isMapping = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value)
  if (!isMapping(base) || !isMapping(override)) return override
  const result: Model = { ...(base as Model) }
  for (const [key, value] of Object.entries(override as Model))
    setEntry(result, key, deepMerge(Object.hasOwn(result, key) ? result[key] : undefined, value))
  return result
}

function buildOf(value: unknown): unknown {
  return typeof value === 'string' ? { context: value } : value
}

/** Merges `override` onto `base` for one service, with compose's per-field rules. */
export function mergeService(base: Model, override: Model): Model {
  const result: Model = { ...base }
  for (const [field, value] of Object.entries(override)) {
    const current = Object.hasOwn(result, field) ? result[field] : undefined
    setEntry(result, field, mergeField(field, current, value))
  }
  return result
}

function mergeField(field: string, current: unknown, value: unknown): unknown {
  if (current === undefined || value === undefined) return value ?? current
  if (mapFields.has(field)) return { ...mapOf(field, current), ...mapOf(field, value) }
  if (replacedFields.has(field)) return value
  if (appendedFields.has(field)) return uniqueAppend(current, value)
  if (Object.hasOwn(keyedListFields, field)) return mergeByKey(current, value, keyedListFields[field]!)
  if (field === 'build') return deepMerge(buildOf(current), buildOf(value))
  if (field === 'healthcheck') return { ...asRecord(deepMerge(current, value)), ...pickTest(value) }
  return deepMerge(current, value)
}

function pickTest(value: unknown): Model {
  const test = asRecord(value).test
  return test === undefined ? {} : { test }
}

/** Merges a later compose file's model onto an earlier one's. */
export function mergeModels(base: Model, override: Model): Model {
  const result: Model = { ...base }
  for (const [key, value] of Object.entries(override)) {
    if (key === 'services') {
      const services: Model = { ...asRecord(result.services) }
      for (const [name, service] of Object.entries(asRecord(value))) {
        const current = Object.hasOwn(services, name) ? services[name] : undefined
        setEntry(
          services,
          name,
          current === undefined ? service : mergeService(asRecord(current), asRecord(service)),
        )
      }
      result.services = services
    } else {
      setEntry(result, key, deepMerge(Object.hasOwn(result, key) ? result[key] : undefined, value))
    }
  }
  return result
}
