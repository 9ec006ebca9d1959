/**
 * `vault export`: every secret of an environment from one API call, formatted, to stdout or to a
 * mode-600 file written atomically. Where the host reads the output as its own configuration (`eval`
 * of `shell`, a `.env` compose reads), a secret whose name controls the host is refused.
 */
import type { EnvFileReader } from '../text/dotenv.js'
import { formatSecrets, type ExportFormat } from './format.js'
import { writeFileAtomic600 } from '../fs/atomic-file.js'
import { basename } from 'node:path'
import { controlsHost, refuseHostVariables } from '../process/host-variables.js'

/** Where the secrets come from: the vault API, or the vault through the offline copy. */
export interface SecretSource {
  listSecrets(environment: string | undefined): Promise<{ name: string; value: string }[]>
}

export interface ExportOptions {
  environment?: string
  format: ExportFormat
  outputFile?: string
  /** Secrets whose names control the host that may still be exported where the host reads them (`--allow-env`). */
  allowEnv?: readonly string[]
}

export interface ExportOutcome {
  text: string
  count: number
  caveats: Record<string, EnvFileReader[]>
  /** Dotenv output into a file not named `.env`: the secrets in it whose names control the host. */
  hostVariables: string[]
}

/**
 * Whether the output is read as configuration of the host: `shell` (for `eval`), and `dotenv` on stdout
 * (`vault export > .env`) or into a file named `.env`, which compose reads for its own settings
 * (DOCKER_HOST, COMPOSE_PROJECT_NAME, COMPOSE_FILE, ...) and for every `${VAR}`.
 */
export function feedsTheHost(format: ExportFormat, outputFile: string | undefined): boolean {
  if (format === 'shell') return true
  return format === 'dotenv' && (outputFile === undefined || basename(outputFile) === '.env')
}

/**
 * Reads and formats the environment's secrets (sorted by name); writes the file when asked. Output the
 * host reads as its own configuration (feedsTheHost) refuses a secret whose name controls the host
 * unless `allowEnv` names it; another dotenv file lists such names in `hostVariables` for a warning.
 */
export async function exportSecrets(api: SecretSource, options: ExportOptions): Promise<ExportOutcome> {
  const secrets = await api.listSecrets(options.environment)
  const names = secrets.map((secret) => secret.name)
  if (feedsTheHost(options.format, options.outputFile)) refuseHostVariables(names, options.allowEnv)
  const allowed = new Set(options.allowEnv)
  const hostVariables =
    options.format === 'dotenv' ? names.filter((name) => controlsHost(name) && !allowed.has(name)).sort() : []
  const values = Object.fromEntries(
    [...secrets].sort((a, b) => (a.name < b.name ? -1 : 1)).map((secret) => [secret.name, secret.value]),
  )
  const formatted = formatSecrets(values, options.format)
  if (options.outputFile) await writeFileAtomic600(options.outputFile, formatted.text)
  return { text: formatted.text, count: secrets.length, caveats: formatted.caveats, hostVariables }
}

/** One line naming the secrets some env-file readers would not read back exactly, or undefined. */
export function describeCaveats(caveats: Record<string, EnvFileReader[]>): string | undefined {
  const byReader = new Map<EnvFileReader, string[]>()
  for (const [name, readers] of Object.entries(caveats)) {
    for (const reader of readers) byReader.set(reader, [...(byReader.get(reader) ?? []), name])
  }
  if (byReader.size === 0) return undefined
  const parts = [...byReader].map(([reader, names]) => {
    const shown = names.slice(0, 5).join(', ')
    return `${reader} (${shown}${names.length > 5 ? ` and ${names.length - 5} more` : ''})`
  })
  return `these values cannot be quoted so that every env-file reader reads them back exactly: ${parts.join('; ')}`
}
