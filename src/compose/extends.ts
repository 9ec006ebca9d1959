/**
 * `extends`, in the same file (`extends: base` / `service:`) and from another (`file:`), resolved
 * recursively with compose's merge rules; a cycle is one located error. Each resolved service also
 * reports the chain of services it was built from, so the reference index can follow it.
 */
import { dirname, resolve } from 'node:path'
import { ComposeInputError } from './errors.js'
import { asRecord, setEntry } from './interpolate-model.js'
import { mergeService } from './merge.js'
import { lineOf } from './yaml-source.js'

type Model = Record<string, unknown>

/**
 * The longest chain of `extends` followed from one service. Resolution recurses once per link and
 * every service keeps its whole chain, so 4,000 links overflowed the stack (exit 1) and 3,000 took
 * 280 MB; real stacks extend a base or two.
 */
export const maxExtendsDepth = 100

/** A compose file after interpolation, as `extends` sees it. */
export interface LoadedFile {
  file: string
  model: Model
  lines: Map<string, number>
}

/** Loads (and caches) a file named by `extends.file`, interpolated like the others. */
export type ExtendsFileLoader = (file: string) => LoadedFile

/** One link of an extends chain: a service of a file. */
export interface ServiceOrigin {
  file: string
  service: string
}

export interface ResolvedServices {
  services: Record<string, Model>
  /** For each service, the services (other than itself) it inherits from. */
  bases: Record<string, ServiceOrigin[]>
}

interface Resolved {
  service: Model
  bases: ServiceOrigin[]
}

/** Resolves `extends` for every service of a loaded file. */
export function resolveExtends(loaded: LoadedFile, loadFile: ExtendsFileLoader): ResolvedServices {
  const services: Record<string, Model> = {}
  const bases: Record<string, ServiceOrigin[]> = {}
  const context: ResolveContext = { loadFile, memo: new Map() }
  for (const name of Object.keys(asRecord(loaded.model.services))) {
    const resolved = resolveService(loaded, name, [], context)
    setEntry(services, name, resolved.service)
    setEntry(bases, name, resolved.bases)
  }
  return { services, bases }
}

/** What every step of one resolution shares: the file loader and the services already resolved. */
interface ResolveContext {
  loadFile: ExtendsFileLoader
  memo: Map<string, Resolved>
}

function resolveService(
  loaded: LoadedFile,
  name: string,
  stack: string[],
  context: ResolveContext,
): Resolved {
  const { loadFile, memo } = context
  const id = `${loaded.file}#${name}`
  const cached = memo.get(id)
  if (cached) return cached
  const service = asRecord(asRecord(loaded.model.services)[name])
  const extendsValue = service.extends
  if (extendsValue === undefined) return { service, bases: [] }
  const line = lineOf(loaded.lines, `services.${name}.extends`)
  if (stack.includes(id)) {
    const chain = [...stack.slice(stack.indexOf(id)), id].map((entry) => entry.split('#')[1]).join(' -> ')
    throw new ComposeInputError(loaded.file, line, `extends cycle: ${chain}`, 'remove one of the extends')
  }
  const tooLong = () =>
    new ComposeInputError(
      loaded.file,
      line,
      `service "${name}" extends a chain of more than ${maxExtendsDepth} services`,
    )
  if (stack.length >= maxExtendsDepth) throw tooLong()
  const spec = typeof extendsValue === 'string' ? { service: extendsValue } : asRecord(extendsValue)
  const baseName = String(spec.service ?? '')
  const baseFile = typeof spec.file === 'string' ? loadFile(resolve(dirname(loaded.file), spec.file)) : loaded
  if (!Object.hasOwn(asRecord(baseFile.model.services), baseName)) {
    throw new ComposeInputError(
      loaded.file,
      line,
      `service "${name}" extends "${baseName}", which is not defined in ${baseFile.file}`,
    )
  }
  const base = resolveService(baseFile, baseName, [...stack, id], context)
  // a base resolved earlier (services listed from the end of the chain) comes back with its chain
  if (base.bases.length >= maxExtendsDepth) throw tooLong()
  const own = { ...service }
  delete own.extends
  const result: Resolved = {
    service: mergeService(base.service, own),
    bases: [{ file: baseFile.file, service: baseName }, ...base.bases],
  }
  memo.set(id, result)
  return result
}
