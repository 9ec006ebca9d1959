/**
 * Drives a Docker Compose provider the way Docker Compose does, for tests on a machine without a compose
 * v2 client. Each step follows docker/compose at commit f72979427042620a94dd52ce78b39c68cb02c085 (v5.5,
 * 2026-08-20), pkg/compose/plugins.go (runPlugin, executePlugin, getPluginBinaryPath,
 * setupPluginCommand, getPluginMetadata, ProviderMetadata, CheckRequiredParameters) and
 * pkg/compose/shellout.go (prepareShellOut), with `provider.options` decoded as compose-go's
 * MultiOptions (compose-spec/compose-go e70e961c3a3acebf0800b882f1afb3dbf1fb74a2, types/options.go):
 *
 * - the binary is `docker-<type>` from the docker CLI plugin directories, else `<type>` on compose's
 *   own PATH (exec.LookPath); no docker CLI plugin is installed here, so PATH decides;
 * - `<bin> compose metadata` runs first; a failure, or JSON that does not decode into ProviderMetadata
 *   (Go's encoding/json: keys match case-insensitively, a wrong JSON type is an error), gives empty
 *   metadata. With metadata, required `up`/`down` parameters missing from the options fail the command
 *   before the provider runs, and only declared options are passed; without, every option is;
 * - `stop` runs only when the metadata has a `stop` block;
 * - argv: `compose --project-name=<P> <command> --<key>=<value>... <service>`, one flag per value of
 *   a list, keys in Go's map order (random: this driver shuffles them);
 * - the environment is the project's (shell plus .env) alone, without DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND;
 *   the working directory is compose's own (cmd.Dir is not set); stderr is not read;
 * - stdout is decoded as a stream of JSON values into {type, message}: `error` fails at once, `info`
 *   and `debug` are shown, `setenv`/`rawsetenv` are cut at the first `=` (no `=` fails), any other type
 *   (an empty one included) fails, as does a decoding error or a non-zero exit;
 * - after `up` and `down`, every service whose depends_on names the provider service receives each
 *   setenv KEY as <UPPER(service)>_KEY, then each rawsetenv KEY as KEY, overriding its own value with a
 *   warning when that value was unset (null) or different.
 */
import { execFile } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

/** A YAML scalar of `provider.options`, or a list of them. */
export type OptionValue = string | number | boolean | null
export interface ProviderConfig {
  type: string
  options?: Record<string, OptionValue | OptionValue[]>
}

export interface ComposeService {
  provider?: ProviderConfig
  dependsOn?: string[]
  /** The service's `environment:`; null is a bare `KEY` (a value from the shell, nil in compose). */
  environment?: Record<string, string | null>
}

export interface ComposeProject {
  name: string
  /** The project's interpolation environment (shell plus .env), the provider's whole environment. */
  environment: Record<string, string>
  services: Record<string, ComposeService>
}

export interface DriverOptions {
  /** compose's own PATH, where `<type>` is looked up. */
  path: string
  /** compose's working directory, which the provider inherits. */
  cwd: string
  /** The order of Go's map iteration over the options (default: random). */
  shuffle?: <T>(items: T[]) => T[]
  timeout?: number
  /** false: compose 2.36, which runs no `compose metadata` and passes every option (default true). */
  withMetadata?: boolean
}

export interface ParameterMetadata {
  name: string
  description: string
  required: boolean
  type: string
  default: string
}
export interface CommandMetadata {
  parameters: ParameterMetadata[] | null
}
export interface ProviderMetadata {
  description: string
  up: CommandMetadata
  down: CommandMetadata
  stop: CommandMetadata | null
}

export interface ProviderRun {
  /** undefined when compose succeeded; otherwise the error compose reports. */
  error?: string
  /** The argv the provider got (after the binary), or undefined when it was not run. */
  argv?: string[]
  exitCode?: number
  stdout?: string
  /** info and debug messages, in order. */
  shown: { type: string; message: string }[]
  /** compose's warnings (rawsetenv overrides). */
  warnings: string[]
  /** Each service's environment after the step (only changed by a successful up or down). */
  services: Record<string, Record<string, string | null>>
}

const emptyMetadata = (): ProviderMetadata => ({
  description: '',
  up: { parameters: null },
  down: { parameters: null },
  stop: null,
})

/** exec.LookPath(type) over `path`: the first executable regular file of that name. */
export function lookPath(name: string, path: string): string {
  for (const dir of path.split(delimiter)) {
    const candidate = join(dir || '.', name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // next directory
    }
  }
  throw new Error(`exec: "${name}": executable file not found in $PATH`)
}

/** compose-go's MultiOptions.DecodeMapstructure: each value, or each item of a list, as fmt.Sprint. */
export function multiOptions(options: ProviderConfig['options'] = {}): Map<string, string[]> {
  const sprint = (value: OptionValue) => (value === null ? '<nil>' : String(value))
  return new Map(
    Object.entries(options).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.map(sprint) : [sprint(value)],
    ]),
  )
}

/**
 * json.Unmarshal of `<bin> compose metadata`'s stdout into ProviderMetadata, or undefined where Go's
 * decoder returns an error (compose then uses empty metadata).
 */
export function decodeProviderMetadata(text: string): ProviderMetadata | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  try {
    const root = goStruct(value, {
      description: 'string',
      up: 'command',
      down: 'command',
      stop: 'command',
    }) as Partial<ProviderMetadata> | null
    // up and down are structs (null leaves them empty), stop a pointer (null is nil)
    return {
      ...emptyMetadata(),
      ...root,
      up: root?.up ?? { parameters: null },
      down: root?.down ?? { parameters: null },
    }
  } catch {
    return undefined
  }
}

type GoField = 'string' | 'bool' | 'command' | 'parameters' | 'parameter'

/** Go's struct decoding: a JSON object whose keys match case-insensitively; null leaves the zero value. */
function goStruct(value: unknown, fields: Record<string, GoField>): Record<string, unknown> | null {
  if (value === null) return null
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('cannot unmarshal into struct')
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const field = Object.keys(fields).find((name) => name.toLowerCase() === key.toLowerCase())
    if (field) out[field] = goValue(item, fields[field]!)
  }
  return out
}

function goValue(value: unknown, kind: GoField): unknown {
  if (value === null) return kind === 'string' ? '' : kind === 'bool' ? false : null
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') throw new Error('cannot unmarshal into string')
      return value
    case 'bool':
      if (typeof value !== 'boolean') throw new Error('cannot unmarshal into bool')
      return value
    case 'command':
      return { parameters: null, ...goStruct(value, { parameters: 'parameters' }) }
    case 'parameters':
      if (!Array.isArray(value)) throw new Error('cannot unmarshal into slice')
      return value.map((item) => goValue(item, 'parameter'))
    case 'parameter':
      return {
        name: '',
        description: '',
        required: false,
        type: '',
        default: '',
        ...goStruct(value, {
          name: 'string',
          description: 'string',
          required: 'bool',
          type: 'string',
          default: 'string',
        }),
      }
  }
}

/** ProviderMetadata.IsEmpty. */
export function isEmptyMetadata(metadata: ProviderMetadata): boolean {
  return metadata.description === '' && metadata.up.parameters === null && metadata.down.parameters === null
}

/**
 * json.Decoder over the provider's stdout into JsonMessage values: JSON values one after another,
 * separated by any JSON whitespace. Returns the messages up to the first decoding error, and that error.
 */
export function decodeMessageStream(stdout: string): {
  messages: { type: string; message: string }[]
  error?: string
} {
  const messages: { type: string; message: string }[] = []
  let position = 0
  for (;;) {
    while (position < stdout.length && ' \t\r\n'.includes(stdout[position]!)) position++
    if (position >= stdout.length) return { messages }
    const end = endOfValue(stdout, position)
    let value: unknown
    try {
      if (end === undefined) throw new Error('unexpected EOF')
      value = JSON.parse(stdout.slice(position, end))
    } catch (error) {
      return { messages, error: `invalid character: ${(error as Error).message}` }
    }
    try {
      const fields = goStruct(value, { type: 'string', message: 'string' }) ?? {}
      messages.push({ type: '', message: '', ...fields } as { type: string; message: string })
    } catch (error) {
      return { messages, error: `json: ${(error as Error).message}` }
    }
    position = end
  }
}

/** The index after the JSON value starting at `start` (by its brackets and strings), or undefined. */
function endOfValue(text: string, start: number): number | undefined {
  let depth = 0
  let inString = false
  for (let index = start; index < text.length; index++) {
    const char = text[index]!
    if (inString) {
      if (char === '\\') index++
      else if (char === '"') {
        inString = false
        if (depth === 0) return index + 1
      }
      continue
    }
    if (char === '"') inString = true
    else if (char === '{' || char === '[') depth++
    else if (char === '}' || char === ']') {
      depth--
      if (depth <= 0) return index + 1
    } else if (depth === 0 && ' \t\r\n{["'.includes(char)) return index
  }
  return depth === 0 && !inString ? text.length : undefined
}

function randomOrder<T>(items: T[]): T[] {
  const copy = [...items]
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1))
    ;[copy[index], copy[other]] = [copy[other]!, copy[index]!]
  }
  return copy
}

function run(
  file: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string; timeout: number },
): Promise<{ exitCode: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: options.env, cwd: options.cwd, timeout: options.timeout, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
        resolve({ exitCode: code, stdout: String(stdout) })
      },
    )
  })
}

/** compose's `up`, `down` or `stop` of the provider service `serviceName` of `project`. */
export async function runProviderStep(
  project: ComposeProject,
  serviceName: string,
  command: 'up' | 'down' | 'stop',
  options: DriverOptions,
): Promise<ProviderRun> {
  // null-prototype maps, as Go's: a key named __proto__ or constructor is a key like any other
  const services = Object.fromEntries(
    Object.entries(project.services).map(([name, service]) => [
      name,
      Object.assign(Object.create(null) as Record<string, string | null>, service.environment),
    ]),
  )
  const result: ProviderRun = { shown: [], warnings: [], services }
  const provider = project.services[serviceName]?.provider
  if (!provider) throw new Error(`${serviceName} is not a provider service`)
  if (provider.type === 'compose') return { ...result, error: "'compose' is not a valid provider type" }
  let binary: string
  try {
    binary = lookPath(provider.type, options.path)
  } catch (error) {
    return { ...result, error: (error as Error).message }
  }
  const env = { ...project.environment }
  delete env.DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND
  const timeout = options.timeout ?? 60_000
  let metadata = emptyMetadata()
  if (options.withMetadata !== false) {
    const metadataRun = await run(binary, ['compose', 'metadata'], { env, cwd: options.cwd, timeout })
    if (metadataRun.exitCode === 0) metadata = decodeProviderMetadata(metadataRun.stdout) ?? metadata
  }
  const current = command === 'stop' ? metadata.stop : metadata[command]
  if (command === 'stop' && current === null) return result
  const declared = current?.parameters ?? []
  const empty = isEmptyMetadata(metadata)
  const given = multiOptions(provider.options)
  if (!empty) {
    const missing = declared.find((parameter) => parameter.required && !given.has(parameter.name))
    if (missing) {
      return {
        ...result,
        error: `required parameter "${missing.name}" is missing from provider "${provider.type}" definition`,
      }
    }
  }
  const argv = ['compose', `--project-name=${project.name}`, command]
  for (const key of (options.shuffle ?? randomOrder)([...given.keys()])) {
    for (const value of given.get(key)!) {
      if (empty || declared.some((parameter) => parameter.name === key)) argv.push(`--${key}=${value}`)
    }
  }
  argv.push(serviceName)
  const executed = await run(binary, argv, { env, cwd: options.cwd, timeout })
  Object.assign(result, { argv, exitCode: executed.exitCode, stdout: executed.stdout })
  const prefixed = new Map<string, string>()
  const raw = new Map<string, string>()
  const stream = decodeMessageStream(executed.stdout)
  for (const message of stream.messages) {
    switch (message.type) {
      case 'error':
        return { ...result, error: message.message }
      case 'info':
      case 'debug':
        result.shown.push(message)
        break
      case 'setenv':
      case 'rawsetenv': {
        const cut = message.message.indexOf('=')
        if (cut === -1) return { ...result, error: `invalid response from plugin: ${message.message}` }
        ;(message.type === 'setenv' ? prefixed : raw).set(
          message.message.slice(0, cut),
          message.message.slice(cut + 1),
        )
        break
      }
      default:
        return { ...result, error: `invalid response from plugin: ${message.type}` }
    }
  }
  if (stream.error) return { ...result, error: stream.error }
  if (executed.exitCode !== 0) {
    const action = { up: 'create', down: 'remove', stop: 'stop' }[command]
    return { ...result, error: `failed to ${action} service provider: exit status ${executed.exitCode}` }
  }
  if (command === 'stop') return result
  for (const [name, service] of Object.entries(project.services)) {
    if (!service.dependsOn?.includes(serviceName)) continue
    const environment = services[name]!
    const prefix = `${serviceName.toUpperCase()}_`
    for (const [key, value] of prefixed) environment[prefix + key] = value
    for (const [key, value] of raw) {
      if (Object.hasOwn(environment, key) && (environment[key] === null || environment[key] !== value)) {
        result.warnings.push(
          `provider "${serviceName}" overrides environment variable "${key}" in service "${name}"`,
        )
      }
      environment[key] = value
    }
  }
  return result
}
