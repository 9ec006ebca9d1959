/**
 * `vault scan --engine`: what the engine keeps about images and containers. Images: each history
 * line (RUN lines show their build arguments), the config's Env, labels, Cmd and Entrypoint.
 * Containers: labels, command (Path, Args, Cmd, Entrypoint), their output (the logs endpoint) and
 * their Env; an Env value is reported only when it is not what the stack is meant to hold there (see
 * `EnvExpectation`). Through the vault proxy, whatever its rules hide (inspect redaction) is not seen.
 */
import type { ScanFinding, ScanLocation } from './findings.js'
import { containerLogs, getJson, unlessGone, type EngineAddress } from './engine-client.js'
import type { SourceContext } from './local-sources.js'
import { searchStream, searchText } from './stream-search.js'

/** Whether a container holding `finding`'s value in its Env is meant to (its service uses that secret). */
export type EnvExpectation = (
  finding: ScanFinding,
  container: { project?: string; service?: string },
) => boolean

interface ImageSummary {
  Id: string
  RepoTags?: string[] | null
}
interface ImageHistoryEntry {
  CreatedBy?: string
  Comment?: string
}
interface ObjectConfig {
  Env?: string[] | null
  Labels?: Record<string, string> | null
  Cmd?: string[] | null
  Entrypoint?: string[] | null
  Tty?: boolean
}
interface ContainerSummary {
  Id: string
}
interface ContainerInspect {
  Id: string
  Name?: string
  Path?: string
  Args?: string[] | null
  Config?: ObjectConfig | null
}

export interface EngineScanCounts {
  images: number
  containers: number
}

/** Scans the images and containers of the engine at `address`. */
export async function scanEngine(
  address: EngineAddress,
  context: SourceContext & { expectedEnv: EnvExpectation },
): Promise<EngineScanCounts> {
  const images = await getJson<ImageSummary[]>(address, '/images/json')
  for (const image of asArray(images)) {
    const id = String(image.Id)
    const tags = asArray(image.RepoTags).map(String)
    const at = (field: string, line?: number): ScanLocation => ({
      source: 'image',
      image: id,
      tags,
      field,
      line,
    })
    const history = await unlessGone(
      getJson<ImageHistoryEntry[]>(address, `/images/${encodeURIComponent(id)}/history`),
    )
    if (!history) continue
    asArray(history).forEach((entry, index) => {
      scanField(context, `${entry.CreatedBy ?? ''}\n${entry.Comment ?? ''}`, (line) =>
        at(`history[${index}]`, line),
      )
    })
    const inspect = await unlessGone(
      getJson<{ Config?: ObjectConfig | null }>(address, `/images/${encodeURIComponent(id)}/json`),
    )
    if (!inspect) continue
    scanConfig(context, inspect.Config, (field) => at(field))
  }
  const containers = await getJson<ContainerSummary[]>(address, '/containers/json?all=1')
  for (const summary of asArray(containers)) {
    const inspect = await unlessGone(
      getJson<ContainerInspect>(address, `/containers/${encodeURIComponent(String(summary.Id))}/json`),
    )
    if (!inspect) continue
    const labels = inspect.Config?.Labels ?? {}
    const owner = {
      project: labelOf(labels, 'com.docker.compose.project'),
      service: labelOf(labels, 'com.docker.compose.service'),
    }
    const at = (field: string, line?: number): ScanLocation => ({
      source: 'container',
      container: String(inspect.Id),
      name: String(inspect.Name ?? '').replace(/^\//, ''),
      ...(owner.service === undefined ? {} : { service: owner.service }),
      field,
      line,
    })
    scanField(context, [inspect.Path ?? '', ...asArray(inspect.Args)].join(' '), () => at('Path'))
    scanConfig(
      context,
      inspect.Config,
      (field) => at(field),
      (finding) => !context.expectedEnv(finding, owner),
    )
    const logs = await unlessGone(containerLogs(address, String(inspect.Id), inspect.Config?.Tty === true))
    if (!logs) continue
    for (const [pattern, line] of await searchStream(context.matcher, logs))
      context.collector.add(pattern, at('logs', line))
  }
  return { images: asArray(images).length, containers: asArray(containers).length }
}

function scanConfig(
  context: SourceContext,
  config: ObjectConfig | null | undefined,
  at: (field: string) => ScanLocation,
  keepEnv?: (finding: ScanFinding) => boolean,
): void {
  if (!config) return
  for (const entry of asArray(config.Env)) {
    const name = String(entry).split('=')[0]!
    for (const [pattern] of searchText(context.matcher, String(entry)))
      context.collector.add(pattern, at(`Env.${name}`), keepEnv)
  }
  for (const [key, value] of Object.entries(config.Labels ?? {}))
    scanField(context, `${key}=${String(value)}`, () => at(`Labels.${key}`))
  scanField(context, asArray(config.Cmd).join(' '), () => at('Cmd'))
  scanField(context, asArray(config.Entrypoint).join(' '), () => at('Entrypoint'))
}

function scanField(context: SourceContext, text: string, at: (line: number) => ScanLocation): void {
  for (const [pattern, line] of searchText(context.matcher, text)) context.collector.add(pattern, at(line))
}

function asArray<T>(value: T[] | null | undefined): T[] {
  return Array.isArray(value) ? value : []
}

function labelOf(labels: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(labels, key) && typeof labels[key] === 'string' ? labels[key] : undefined
}
