/**
 * The normalised service model `docker compose config` prints: `env_file` read into `environment`
 * (which wins; with `--no-interpolate` the `env_file` entries are kept in long form instead), maps instead of `KEY=value` lists, long port syntax, `depends_on`/`networks` as maps,
 * `build` as a mapping with an absolute context.
 */
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { readEnvFile, type EnvFileResult } from './env-file.js'
import { ComposeFileNotFoundError, ComposeInputError } from './errors.js'
import type { Lookup } from './interpolate.js'
import { maskText } from '../text/mask-text.js'
import { asRecord, setEntry } from './interpolate-model.js'
import { listToMap } from './merge.js'
import { normalizeBuild, normalizeDependsOn, normalizeFileMounts } from './normalize-fields.js'
import type { ReferenceSite } from './types.js'
import { readInputFile } from './input-file.js'

type Model = Record<string, unknown>

/**
 * node:net's isIP, loaded on first use: importing node:net loads Node's whole socket stack, several
 * ms of every render's start-up, and only a port with a host address needs it.
 */
function isIP(text: string): number {
  return process.getBuiltinModule('node:net').isIP(text)
}

export interface NormalizeContext {
  lookup: Lookup
  interpolate: boolean
  /** Errors are being collected (`--check`): a port left empty by a failed substitution is kept as written. */
  collecting?: boolean
  references: ReferenceSite[]
  maskNames?: ReadonlySet<string>
  /** Env files already read in this load, by absolute path (services often share one). */
  envFiles: Map<string, EnvFileResult>
}

/** Env file entries of a service (`env_file`), absolute, with whether each must exist. */
function envFileEntries(value: unknown, baseDir: string): { path: string; required: boolean }[] {
  const list = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]
  return list.map((entry) => {
    const spec = typeof entry === 'string' ? { path: entry } : asRecord(entry)
    const path = String(spec.path)
    return { path: isAbsolute(path) ? path : resolve(baseDir, path), required: spec.required !== false }
  })
}

/** A bind source made absolute (`./data`, `../x` against `baseDir`; `~` against the home directory). */
function absoluteBindSource(source: string, baseDir: string): string {
  if (source.includes('$')) return source
  if (source === '~' || source.startsWith('~/')) return join(homedir(), source.slice(1))
  return source.startsWith('.') ? resolve(baseDir, source) : source
}

function absolutizeVolume(entry: unknown, baseDir: string): unknown {
  if (typeof entry === 'string') {
    const colon = entry.indexOf(':')
    if (colon <= 0) return entry
    return absoluteBindSource(entry.slice(0, colon), baseDir) + entry.slice(colon)
  }
  const record = asRecord(entry)
  if (record.type !== 'bind' || typeof record.source !== 'string' || record.source.includes('$')) return entry
  const source = absoluteBindSource(record.source, baseDir)
  return { ...record, source: isAbsolute(source) ? source : resolve(baseDir, source) }
}

/** Makes relative `env_file`, `build` and bind-mount paths of every service absolute against `baseDir`. */
export function absolutizeServicePaths(model: Model, baseDir: string): void {
  for (const service of Object.values(asRecord(model.services))) {
    const record = asRecord(service)
    if (Array.isArray(record.volumes))
      record.volumes = record.volumes.map((entry) => absolutizeVolume(entry, baseDir))
    if (record.env_file !== undefined) record.env_file = envFileEntries(record.env_file, baseDir)
    if (typeof record.build === 'string') record.build = { context: record.build }
    const build = asRecord(record.build)
    if (
      typeof build.context === 'string' &&
      !isAbsolute(build.context) &&
      !/^[a-z]+:\/\//.test(build.context)
    ) {
      build.context = resolve(baseDir, build.context)
    }
  }
}

function scalarText(value: unknown): unknown {
  if (value === null || value === undefined) return null
  return typeof value === 'string' ? value : String(value)
}

/**
 * An env file, read once per load; undefined when an optional one cannot be read. A missing required
 * one names the service whose env_file lists it and what to do (an `env_file: .env` in a published
 * stack is often a file its install guide creates, which a stack keeping its secrets in the vault
 * has not made).
 */
function readSharedEnvFile(
  entry: { path: string; required: boolean },
  context: NormalizeContext,
  service: string,
): EnvFileResult | undefined {
  const cached = context.envFiles.get(entry.path)
  if (cached) return cached
  let text: string
  try {
    text = readInputFile(entry.path, 'env file')
  } catch (error) {
    if (!entry.required) return undefined
    if (error instanceof ComposeFileNotFoundError && !existsSync(entry.path))
      throw new ComposeFileNotFoundError(`service ${service}: env file ${entry.path} not found`, {
        hint: 'compose refuses a service whose env_file is missing: create the file (an empty one will do), or mark the entry required: false (compose 2.24 and later)',
      })
    throw error
  }
  const read = readEnvFile(text, context.lookup, { file: entry.path })
  context.envFiles.set(entry.path, read)
  return read
}

function resolveEnvironment(name: string, service: Model, context: NormalizeContext, file: string): Model {
  const environment: Model = {}
  for (const entry of envFileEntries(service.env_file, '/')) {
    const read = readSharedEnvFile(entry, context, name)
    if (!read) continue
    for (const item of read.entries) {
      for (const reference of item.references) {
        context.references.push({
          ...reference,
          service: name,
          field: 'env_file',
          file: entry.path,
          line: item.line,
        })
      }
      if (context.interpolate && Object.hasOwn(read.values, item.key))
        setEntry(environment, item.key, maskedIfVault(read.values[item.key]!, item, context))
    }
  }
  for (const [key, value] of Object.entries(listToMap(service.environment))) {
    if (value !== null && value !== undefined) {
      setEntry(environment, key, context.maskNames && key.startsWith('VAULT_') ? maskText : scalarText(value))
      continue
    }
    context.references.push({
      name: key,
      operator: '',
      word: '',
      required: false,
      service: name,
      field: `environment.${key}`,
      file,
    })
    const inherited = context.interpolate ? context.lookup(key) : undefined
    setEntry(
      environment,
      key,
      inherited === undefined ? null : context.maskNames?.has(key) ? maskText : inherited,
    )
  }
  return sortKeys(environment)
}

function maskedIfVault(
  value: string,
  item: { key: string; references: { name: string }[] },
  context: NormalizeContext,
): string {
  const masked = context.maskNames
  if (masked && item.key.startsWith('VAULT_')) return maskText
  return masked && item.references.some((reference) => masked.has(reference.name)) ? maskText : value
}

const portRange = /^[0-9]+(-[0-9]+)?$/

/**
 * Short port syntax (`[ip:][published:]target[/proto]`) to compose's long syntax, as
 * go-connections' `nat.ParsePortSpec` reads it; undefined when the entry does not parse.
 */
function parsePort(entry: unknown): Model[] | undefined {
  if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) return [entry as Model]
  if (typeof entry !== 'string' && typeof entry !== 'number') return undefined
  const text = String(entry)
  const slash = text.lastIndexOf('/')
  const spec = slash === -1 ? text : text.slice(0, slash)
  const protocol = slash === -1 ? 'tcp' : text.slice(slash + 1).toLowerCase()
  const parts = spec.split(':')
  const target = parts.pop() ?? ''
  const published = parts.pop() ?? ''
  const hostIp = parts.join(':').replace(/^\[(.*)\]$/, '$1')
  if (hostIp !== '' && isIP(hostIp) === 0) return undefined
  if (!portRange.test(target) || (published !== '' && !portRange.test(published)) || protocol === '')
    return undefined
  const targets = expandRange(target)
  const publishedRange = published === '' ? undefined : expandRange(published)
  if (!targets || (published !== '' && !publishedRange)) return undefined
  if (publishedRange && targets.length > 1 && publishedRange.length !== targets.length) return undefined
  return targets.map((port, index) => {
    const long: Model = { mode: 'ingress' }
    if (hostIp) long.host_ip = hostIp
    long.target = port
    if (publishedRange) {
      long.published = publishedRange.length === targets.length ? String(publishedRange[index]) : published
    }
    long.protocol = protocol
    return long
  })
}

function expandRange(text: string): number[] | undefined {
  const [start = NaN, end = start] = text.split('-').map(Number)
  if (!(start <= end) || end > 65535) return undefined
  return Array.from({ length: end - start + 1 }, (_, index) => start + index)
}

/**
 * A service's `ports` in long syntax. As compose does, with `--no-interpolate` a list holding an
 * entry that does not parse (`${PORT:-80}:80`) is kept as written; otherwise it is an error (or,
 * when collecting, the substitution error already reported stands for it).
 */
function normalizePorts(ports: unknown[], strict: boolean, file: string): unknown[] {
  const result: unknown[] = []
  for (const entry of ports) {
    const parsed = parsePort(entry)
    if (parsed) result.push(...parsed)
    else if (!strict) return ports
    else throw new ComposeInputError(file, undefined, 'invalid port specification (the value is not shown)')
  }
  return result
}

/** Normalises one merged service the way `docker compose config` prints it. */
export function normalizeService(
  name: string,
  service: Model,
  context: NormalizeContext,
  file: string,
): Model {
  const result: Model = { ...service }
  delete result.extends
  if (service.environment !== undefined || service.env_file !== undefined) {
    result.environment = resolveEnvironment(name, service, context, file)
  }
  if (context.interpolate || service.env_file === undefined) delete result.env_file
  else result.env_file = envFileEntries(service.env_file, '/')
  for (const field of ['labels', 'annotations', 'sysctls']) {
    if (service[field] !== undefined) {
      const entries = Object.entries(listToMap(service[field])).map(([key, value]) => [
        key,
        scalarText(value),
      ])
      result[field] = sortKeys(Object.fromEntries(entries))
    }
  }
  if (Array.isArray(service.ports))
    result.ports = normalizePorts(service.ports, context.interpolate && !context.collecting, file)
  if (service.depends_on !== undefined) result.depends_on = normalizeDependsOn(service.depends_on)
  for (const field of ['secrets', 'configs']) {
    if (service[field] !== undefined) result[field] = normalizeFileMounts(service[field])
  }
  if (service.build !== undefined)
    result.build = normalizeBuild(service.build, (key) =>
      context.maskNames?.has(key) ? maskText : context.lookup(key),
    )

  if (Array.isArray(service.networks)) {
    result.networks = Object.fromEntries(service.networks.map((network) => [String(network), null]))
  }
  if (typeof service.command === 'number') result.command = String(service.command)
  return sortKeys(result)
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A copy of a mapping with its keys in alphabetical order. */
export function sortKeys(record: Model): Model {
  const sorted: Model = {}
  for (const key of Object.keys(record).sort(byCodeUnit)) setEntry(sorted, key, record[key])
  return sorted
}
