/**
 * The typed fields of a compose file and their casts, as compose-go applies them while
 * interpolating (`loader/interpolate.go`): a string at one of these paths becomes an integer, a
 * number or a boolean; a value that does not cast is an error naming the path, never the value.
 * File modes (`secrets[].mode`, `configs[].mode`) written as strings are read as octal, as
 * compose-go's `FileMode` reads them.
 */
import { ComposeInputError, located } from './errors.js'
import { childPath } from './fast-yaml.js'
import type { ComposeProblem } from './types.js'
import { lineOf, type YamlSource } from './yaml-source.js'

type Cast = 'integer' | 'number' | 'boolean' | 'octal'

/** Where a cast error goes: thrown, or recorded in `collect` (`--check`). */
export interface CastContext {
  collect?: ComposeProblem[]
  /** A value left as it is because it is masked (`********`). An empty value is left alone when
   * collecting: it is what a failed interpolation, already reported, leaves behind. */
  masked?: string
}

const castTable: [string, Cast][] = [
  ['services.*.cpu_count', 'integer'],
  ['services.*.cpu_percent', 'number'],
  ['services.*.cpu_period', 'integer'],
  ['services.*.cpu_quota', 'integer'],
  ['services.*.cpu_rt_period', 'integer'],
  ['services.*.cpu_rt_runtime', 'integer'],
  ['services.*.cpus', 'number'],
  ['services.*.cpu_shares', 'integer'],
  ['services.*.init', 'boolean'],
  ['services.*.depends_on.*.required', 'boolean'],
  ['services.*.depends_on.*.restart', 'boolean'],
  ['services.*.deploy.replicas', 'integer'],
  ['services.*.deploy.update_config.parallelism', 'integer'],
  ['services.*.deploy.update_config.max_failure_ratio', 'number'],
  ['services.*.deploy.rollback_config.parallelism', 'integer'],
  ['services.*.deploy.rollback_config.max_failure_ratio', 'number'],
  ['services.*.deploy.restart_policy.max_attempts', 'integer'],
  ['services.*.deploy.placement.max_replicas_per_node', 'integer'],
  ['services.*.healthcheck.retries', 'integer'],
  ['services.*.healthcheck.disable', 'boolean'],
  ['services.*.oom_kill_disable', 'boolean'],
  ['services.*.oom_score_adj', 'integer'],
  ['services.*.pids_limit', 'integer'],
  ['services.*.ports.[].target', 'integer'],
  ['services.*.privileged', 'boolean'],
  ['services.*.read_only', 'boolean'],
  ['services.*.scale', 'integer'],
  ['services.*.stdin_open', 'boolean'],
  ['services.*.tty', 'boolean'],
  ['services.*.ulimits.*', 'integer'],
  ['services.*.ulimits.*.hard', 'integer'],
  ['services.*.ulimits.*.soft', 'integer'],
  ['services.*.volumes.[].read_only', 'boolean'],
  ['services.*.volumes.[].volume.nocopy', 'boolean'],
  ['services.*.secrets.[].mode', 'octal'],
  ['services.*.configs.[].mode', 'octal'],
  ['networks.*.external', 'boolean'],
  ['networks.*.internal', 'boolean'],
  ['networks.*.attachable', 'boolean'],
  ['networks.*.enable_ipv4', 'boolean'],
  ['networks.*.enable_ipv6', 'boolean'],
  ['volumes.*.external', 'boolean'],
  ['secrets.*.external', 'boolean'],
  ['configs.*.external', 'boolean'],
]

/** The cast table as a tree of path parts (`*` any key, `[]` any list item), walked once per file. */
interface CastNode {
  cast?: Cast
  /** The parts below this one and their nodes, in table order. */
  children: [string, CastNode][]
}

const castTree: CastNode = { children: [] }
for (const [pattern, cast] of castTable) {
  let node = castTree
  for (const part of pattern.split('.')) {
    let next = node.children.find(([name]) => name === part)?.[1]
    if (!next) {
      next = { children: [] }
      node.children.push([part, next])
    }
    node = next
  }
  node.cast = cast
}

/** compose-go's boolean cast: true/false, and the YAML 1.1 words it still accepts with a warning. */
function toBoolean(text: string): boolean | undefined {
  switch (text.toLowerCase()) {
    case 'true':
    case 'y':
    case 'yes':
    case 'on':
      return true
    case 'false':
    case 'n':
    case 'no':
    case 'off':
      return false
    default:
      return undefined
  }
}

/** The value of `text` under `cast` (Go's strconv rules: no blanks, no `0x` for integers), or undefined. */
export function castText(text: string, cast: Cast): unknown {
  switch (cast) {
    case 'boolean':
      return toBoolean(text)
    case 'integer':
      return /^[-+]?[0-9]+$/.test(text) ? Number(text) : undefined
    case 'octal':
      return /^[-+]?[0-7]+$/.test(text) ? parseInt(text, 8) : undefined
    case 'number': {
      if (!/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return undefined
      return Number(text)
    }
  }
}

function describe(cast: Cast): string {
  if (cast === 'integer') return 'an integer'
  if (cast === 'octal') return 'an octal file mode'
  return `a ${cast}`
}

/** One typed value: the mapping or list holding it and its key. */
interface CastTarget {
  holder: Record<string, unknown> | unknown[]
  key: string | number
}

function castOne(
  target: CastTarget,
  where: { path: string; cast: Cast },
  source: YamlSource,
  context: CastContext,
): void {
  const { holder, key } = target
  const current = (holder as Record<string, unknown>)[key]
  const wrongType = where.cast === 'boolean' && typeof current === 'number'
  if (typeof current !== 'string' && !wrongType) return
  if (typeof current === 'string') {
    if (current === context.masked || (current === '' && context.collect)) return
    const result = castText(current, where.cast)
    if (result !== undefined) {
      ;(holder as Record<string, unknown>)[key] = result
      return
    }
  }
  const line = lineOf(source.lines, where.path)
  const message = `${where.path} must be ${describe(where.cast)} (the value is not shown)`
  if (!context.collect) throw new ComposeInputError(source.file, line, message)
  context.collect.push({
    level: 'error',
    code: 'invalid_value',
    message: located(source.file, line, message),
    file: source.file,
    line,
  })
}

/** Applies a cast to `holder[key]`; `path` is the holder's, the key's own is built on an error. */
type Apply = (
  holder: Record<string, unknown> | unknown[],
  key: string | number,
  path: string,
  cast: Cast,
) => void

/**
 * Walks `node` along the cast tree in the tree's order (so errors come in table order), by index:
 * it runs over every service of every file, and iterators would allocate an entry per step.
 */
function visit(node: unknown, tree: CastNode, path: string, apply: Apply): void {
  if (node === null || typeof node !== 'object') return
  const holder = node as Record<string, unknown>
  const step = (key: string | number, child: CastNode) => {
    if (child.cast) apply(holder, key, path, child.cast)
    const value = holder[key]
    if (child.children.length > 0 && value !== null && typeof value === 'object')
      visit(value, child, childPath(path, key), apply)
  }
  const list = Array.isArray(node)
  for (let entry = 0; entry < tree.children.length; entry++) {
    const part = tree.children[entry]![0]
    const child = tree.children[entry]![1]
    if (list) {
      if (part === '[]') for (let index = 0; index < node.length; index++) step(index, child)
    } else if (part === '*') {
      for (const key of Object.keys(holder)) step(key, child)
    } else if (part !== '[]' && Object.hasOwn(holder, part)) step(part, child)
  }
}

/** Casts every typed field of an interpolated compose file in place (a fresh copy, never shared). */
export function castTypedFields(
  model: Record<string, unknown>,
  source: YamlSource,
  context: CastContext,
): void {
  visit(model, castTree, '', (holder, key, path, cast) =>
    castOne({ holder, key }, { path: childPath(path, key), cast }, source, context),
  )
}
