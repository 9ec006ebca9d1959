/**
 * A service's `volumes` entries in compose v2's long syntax, as compose-go reads the short syntax
 * (`format.ParseVolume`: `[source:]target[:options]`, `:` inside `${...}` not splitting, a path-like
 * source making a bind mount that creates its host path) and as its defaults and `Normalize` leave
 * the long syntax (`bind.create_host_path: true` when `bind` is given, the target cleaned).
 */
import { posix } from 'node:path'
import { asRecord } from './interpolate-model.js'

type Model = Record<string, unknown>

const propagations = new Set(['rprivate', 'private', 'rshared', 'shared', 'rslave', 'slave'])
const selinuxLabels = new Set(['z', 'Z'])

/** Go's `path.Clean` (no trailing slash, `.` for an empty result); '' stays ''. */
export function cleanPath(path: string): string {
  if (path === '') return ''
  const normal = posix.normalize(path)
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal
}

function isWindowsDrive(buffer: string, char: string): boolean {
  return char === ':' && buffer.length === 1 && /\p{L}/u.test(buffer)
}

function isFilePath(source: string): boolean {
  if (source === '') return false
  if ('./~'.includes(source[0]!) || source.startsWith('\\\\')) return true
  const [first = '', second = ''] = [...source]
  return second !== '' && isWindowsDrive(first, second)
}

/** The `source`, `target` and options sections of a short volume spec; undefined when it does not parse. */
function splitSpec(spec: string): string[] | undefined {
  const sections: string[] = []
  let buffer = ''
  let depth = 0
  for (let index = 0; index <= spec.length; index++) {
    const char = index < spec.length ? spec[index]! : ''
    if (char === '$' && spec[index + 1] === '{') depth++
    else if (char === '}' && depth > 0) depth--
    else if ((char === ':' || char === '') && depth === 0 && !isWindowsDrive(buffer, char)) {
      if (buffer === '' || sections.length === 3) return undefined
      sections.push(buffer)
      buffer = ''
      continue
    }
    buffer += char
  }
  return sections
}

/**
 * A short volume spec in long syntax, key order as compose prints it; undefined when compose
 * would refuse it (then the entry is printed as written).
 */
export function parseShortVolume(spec: string): Model | undefined {
  if (spec.length === 0) return undefined
  if (spec.length <= 2) return { type: 'volume', target: spec }
  const sections = splitSpec(spec)
  if (!sections) return undefined
  const [first = '', second, options] = sections
  const source = second === undefined ? '' : first
  const target = second === undefined ? first : second
  let readOnly = false
  const bind: Model = {}
  let volume: Model | undefined
  for (const option of (options ?? '').split(',')) {
    if (option === 'ro') readOnly = true
    else if (option === 'rw') readOnly = false
    else if (option === 'nocopy') volume = { nocopy: true }
    else if (propagations.has(option)) bind.propagation = option
    else if (selinuxLabels.has(option)) bind.selinux = option
  }
  const bindMount = isFilePath(source)
  const long: Model = { type: bindMount ? 'bind' : 'volume' }
  if (source !== '') long.source = source
  long.target = cleanPath(target)
  if (readOnly) long.read_only = true
  if (bindMount) long.bind = { ...bind, create_host_path: true }
  else {
    if (Object.keys(bind).length > 0) long.bind = bind
    long.volume = volume ?? {}
  }
  return long
}

/** One `volumes` entry of a service in compose v2's long syntax. */
export function longVolume(entry: unknown): unknown {
  if (typeof entry === 'string') return parseShortVolume(entry) ?? entry
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry
  const record = asRecord(entry)
  const long: Model = { ...record }
  if (typeof record.target === 'string') long.target = cleanPath(record.target)
  if (record.bind !== undefined && record.bind !== null && typeof record.bind === 'object') {
    const bind = asRecord(record.bind)
    long.bind = { ...bind, create_host_path: bind.create_host_path ?? true }
  }
  return long
}
