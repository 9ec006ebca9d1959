/**
 * The variables a stack is interpolated with, in layers: the project env files (`--env-file` in
 * order, else the project directory's `.env`), the process environment over them, and the vault's
 * secrets on top (or just under the process environment with `preferHostEnv`).
 */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { readEnvFile } from './env-file.js'
import { setEntry } from './interpolate-model.js'
import type { Lookup } from './interpolate.js'
import type { ReferenceSite, VariableOrigin } from './types.js'
import { readInputFile } from './input-file.js'

export interface EnvironmentOptions {
  cwd: string
  projectDirectory: string
  /** `--env-file` paths, relative to `cwd`. */
  envFiles?: string[]
  processEnv: Record<string, string | undefined>
  /** The vault layer's secrets (`--env`). */
  secrets?: Record<string, string>
  preferHostEnv?: boolean
}

export interface ProjectEnvironment {
  variables: Record<string, string>
  origins: Record<string, VariableOrigin>
  /** Names a higher layer took over from a lower one: name -> the lower layer. */
  shadowed: Record<string, VariableOrigin>
  envFiles: string[]
  /** References made inside the project env files. */
  references: ReferenceSite[]
  lookup: Lookup
}

/** The env files compose reads for a project: the given ones, else `.env` when it exists. */
function projectEnvFiles(
  options: Pick<EnvironmentOptions, 'cwd' | 'projectDirectory' | 'envFiles'>,
): string[] {
  if (options.envFiles && options.envFiles.length > 0)
    return options.envFiles.map((file) => resolve(options.cwd, file))
  const dotEnv = join(options.projectDirectory, '.env')
  return existsSync(dotEnv) ? [dotEnv] : []
}

/** Reads the env files and layers them with the process environment and the vault's secrets. */
export function loadProjectEnvironment(options: EnvironmentOptions): ProjectEnvironment {
  const envFiles = projectEnvFiles(options)
  const fromFiles: Record<string, string> = {}
  const references: ReferenceSite[] = []
  const processEnv = options.processEnv
  const named = Boolean(options.envFiles?.length)
  for (const file of envFiles) {
    const hostValue = (name: string) => (Object.hasOwn(processEnv, name) ? processEnv[name] : undefined)
    const read = readEnvFile(readInputFile(file, 'env file', { named }), hostValue, {
      file,
      earlier: fromFiles,
    })
    for (const [name, value] of Object.entries(read.values)) setEntry(fromFiles, name, value)
    for (const entry of read.entries) {
      for (const reference of entry.references) {
        references.push({ ...reference, service: '', field: entry.key, file, line: entry.line })
      }
    }
  }
  const layers: [VariableOrigin, Record<string, string | undefined>][] = [['env-file', fromFiles]]
  const hostLayer: [VariableOrigin, Record<string, string | undefined>] = ['environment', processEnv]
  const vaultLayer: [VariableOrigin, Record<string, string | undefined>] = ['vault', options.secrets ?? {}]
  if (options.preferHostEnv) layers.push(vaultLayer, hostLayer)
  else layers.push(hostLayer, vaultLayer)
  const variables: Record<string, string> = {}
  const origins: Record<string, VariableOrigin> = {}
  const shadowed: Record<string, VariableOrigin> = {}
  for (const [origin, layer] of layers) {
    for (const [name, value] of Object.entries(layer)) {
      if (value === undefined) continue
      if (Object.hasOwn(origins, name)) setEntry(shadowed, name, origins[name])
      setEntry(variables, name, value)
      setEntry(origins, name, origin)
    }
  }
  const lookup: Lookup = (name) => (Object.hasOwn(variables, name) ? variables[name] : undefined)
  return { variables, origins, shadowed, envFiles, references, lookup }
}
