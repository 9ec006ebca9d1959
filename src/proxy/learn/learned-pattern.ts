/**
 * The rule pattern learn mode writes for one canonical path (pure), in the presets' terms: the API version
 * prefix becomes `%API_PREFIX%` (or a section's `%API_PREFIX_CONTAINERS%`), a segment where the engine
 * takes a container, image, network, volume, exec, ... id or name becomes that object's variable
 * (`%CONTAINER_ID_OR_NAME%`), and every other character is written literally, escaped. A path is an
 * attacker's text: nothing of it is written unescaped but letters, digits, `_`, `-` and `/`, so a `.`,
 * `|`, `(`, `%`, `#`, a blank or a line break in a name means itself and cannot end the line, start a
 * comment or name a variable. A name is generalised only where its variable matches it; otherwise the
 * name is kept literally. Collection endpoints (`/containers/create`, `/images/json`) are never read as
 * names, so learning an inspect cannot produce a rule that also allows a create.
 */
import { compileRulePattern, type RulePattern } from '../rule-pattern.js'
import { ruleVariables } from '../variables.js'

/** The longest pattern learned; a longer one is not recorded (learn.ts then refuses as the rules do). */
export const maxLearnedPatternLength = 1024

/** A learned pattern: what comes before its last segment, and that segment when it is literal text. */
export interface LearnedPattern {
  /** The whole pattern, as written in the rules file. */
  pattern: string
  /** The pattern up to its last `/` (for merging `.../json` and `.../logs` into `.../(?:json|logs)`). */
  head: string
  /** The last segment, escaped, when it is literal text (undefined when it is a variable). */
  last?: string
}

/** The object variable for the segment after each section whose endpoints name an object. */
const objectVariables: Record<string, string> = {
  containers: 'CONTAINER_ID_OR_NAME',
  images: 'IMAGE_ID_OR_REFERENCE',
  networks: 'NETWORK_ID_OR_NAME',
  volumes: 'VOLUME_ID_OR_NAME',
  exec: 'EXEC_ID',
  plugins: 'PLUGIN_ID_OR_NAME',
  services: 'SERVICE_ID_OR_NAME',
  nodes: 'NODE_ID_OR_NAME',
  tasks: 'TASK_ID',
  secrets: 'SECRET_ID_OR_NAME',
  configs: 'CONFIG_ID_OR_NAME',
  distribution: 'IMAGE_REFERENCE',
  pods: 'POD_ID_OR_NAME',
}

/** Sections whose object names may hold slashes (`library/busybox:1`): the name runs to the last segment. */
const slashedNames = new Set(['images', 'plugins', 'distribution'])

/** Docker sections whose two-segment GET `/<section>/<x>` is an inspect of object x. */
const inspectedByGet = new Set(['networks', 'volumes', 'services', 'nodes', 'tasks', 'secrets', 'configs'])

/** `/v1.41`: the versions `%API_PREFIX%` (`(?:/v[0-9]+(?:\.[0-9]+)*)?`) takes. */
const versionPrefix = /^\/v[0-9]+(?:\.[0-9]+)*(?=\/)/
const sectionName = /^[a-z_]+$/
const plain = /[A-Za-z0-9_/-]/

/** A path's text as an RE2 literal: letters, digits, `_`, `-`, `/` as they are, the rest escaped. */
export function escapeLiteral(text: string): string {
  // joined, not concatenated: a string built with += is a rope of one node per character (about 20 KB
  // for a 750-character pattern, as kept in the record), a joined one is flat
  const escaped: string[] = []
  for (const char of text) {
    const code = char.codePointAt(0)!
    if (plain.test(char)) escaped.push(char)
    else if (code > 0x20 && code < 0x7f && char !== '%' && char !== '#') escaped.push(`\\${char}`)
    else escaped.push(`\\x{${code.toString(16).toUpperCase()}}`)
  }
  return escaped.join('')
}

const compiledVariables = new Map<string, RulePattern>()

/** Whether `%name%` matches `text` whole. */
function variableMatches(name: string, text: string): boolean {
  let compiled = compiledVariables.get(name)
  if (!compiled) compiledVariables.set(name, (compiled = compileRulePattern(ruleVariables[name]!)))
  return compiled.test(text)
}

/** `%API_PREFIX_<SECTION>%` when the rule language has that variable for `prefixName` and `section`. */
function sectionVariable(prefixName: string, section: string): string | undefined {
  if (!sectionName.test(section)) return undefined
  const name = `${prefixName}_${section.replace(/^_/, '').toUpperCase()}`
  return ruleVariables[name] === `${ruleVariables[prefixName]}/${section}` ? `%${name}%` : undefined
}

/** Where the object's name is among the segments after the section: [first, end), or undefined. */
function nameSpan(section: string, rest: readonly string[], context: { method: string; libpod: boolean }) {
  if (objectVariables[section] === undefined || rest.length === 0) return undefined
  if (rest.length === 1) {
    const inspect = context.method === 'GET' && !context.libpod && inspectedByGet.has(section)
    return context.method === 'DELETE' || inspect ? [0, 1] : undefined
  }
  if (!slashedNames.has(section)) return [0, 1]
  return context.method === 'DELETE' ? [0, rest.length] : [0, rest.length - 1]
}

/** The segments after the section, the object name generalised where its variable matches it. */
function restSegments(
  section: string,
  rest: readonly string[],
  context: { method: string; libpod: boolean },
) {
  const span = nameSpan(section, rest, context)
  const escaped = rest.map((segment) => ({ text: escapeLiteral(segment), literal: true }))
  if (!span) return escaped
  const [first, end] = span as [number, number]
  const name = rest.slice(first, end).join('/')
  const variable = objectVariables[section]!
  if (!variableMatches(variable, name)) return escaped
  return [...escaped.slice(0, first), { text: `%${variable}%`, literal: false }, ...escaped.slice(end)]
}

/**
 * The learned pattern for `method` on a canonical path, or undefined when it would be longer than
 * maxLearnedPatternLength.
 */
export function learnedPattern(method: string, path: string): LearnedPattern | undefined {
  const version = versionPrefix.exec(path)
  const afterVersion = version ? path.slice(version[0].length) : path
  const segments = afterVersion.split('/').slice(1)
  const libpod = version !== null && segments[0] === 'libpod' && segments.length > 1
  const [section = '', ...rest] = libpod ? segments.slice(1) : segments
  // a trailing slash is kept literally and never read as (part of) a name
  const trailing = rest.length > 0 && rest.at(-1) === '' ? rest.splice(-1) : []
  const prefixName = libpod ? 'API_PREFIX_LIBPOD' : 'API_PREFIX'
  let parts: { text: string; literal: boolean }[]
  if (path === '/' || !path.startsWith('/') || /^\/v[0-9.]/.test(afterVersion))
    // a version prefix %API_PREFIX% does not take (`/v1.41./`), or a second one (`/v1.41/v1.41/...`,
    // which the engine routes nowhere; written after %API_PREFIX%, the optional prefix would match
    // nothing and the literal `/v1.41` be the version, allowing `/v1.41/...`): all of it literally
    parts = [{ text: escapeLiteral(path), literal: true }]
  else {
    const start = sectionVariable(prefixName, section) ?? `%${prefixName}%/${escapeLiteral(section)}`
    parts = [
      { text: start, literal: false },
      ...restSegments(section, rest, { method, libpod }),
      ...trailing.map(() => ({ text: '', literal: true })),
    ]
  }
  const pattern = parts.map((part) => part.text).join('/')
  if (pattern.length > maxLearnedPatternLength) return undefined
  const lastPart = parts.length > 1 ? parts.at(-1)! : undefined
  if (!lastPart?.literal || lastPart.text === '') return { pattern, head: pattern }
  return {
    pattern,
    head: parts
      .slice(0, -1)
      .map((part) => part.text)
      .join('/'),
    last: lastPart.text,
  }
}
