/**
 * `vault export`: every secret of an environment from one API call, formatted, to stdout or to a
 * mode-600 file written atomically.
 */
import type { EnvFileReader } from './dotenv.js'
import { formatSecrets, type ExportFormat } from './format.js'
import { writeFileAtomic600 } from '../fs/atomic-file.js'
import { refuseHostVariables } from '../process/host-variables.js'

/** Where the secrets come from: the vault API, or the vault through the offline copy. */
export interface SecretSource {
  listSecrets(environment: string | undefined): Promise<{ name: string; value: string }[]>
}

export interface ExportOptions {
  environment?: string
  format: ExportFormat
  outputFile?: string
  /** For `shell`: secrets whose names control the host that may still be exported (`--allow-env`). */
  allowEnv?: readonly string[]
}

export interface ExportOutcome {
  text: string
  count: number
  caveats: Record<string, EnvFileReader[]>
}

/**
 * Reads and formats the environment's secrets (sorted by name); writes the file when asked. The shell
 * format, meant for `eval`, refuses a secret whose name controls the host unless `allowEnv` names it.
 */
export async function exportSecrets(api: SecretSource, options: ExportOptions): Promise<ExportOutcome> {
  const secrets = await api.listSecrets(options.environment)
  if (options.format === 'shell')
    refuseHostVariables(
      secrets.map((secret) => secret.name),
      options.allowEnv,
    )
  const values = Object.fromEntries(
    [...secrets].sort((a, b) => (a.name < b.name ? -1 : 1)).map((secret) => [secret.name, secret.value]),
  )
  const formatted = formatSecrets(values, options.format)
  if (options.outputFile) await writeFileAtomic600(options.outputFile, formatted.text)
  return { text: formatted.text, count: secrets.length, caveats: formatted.caveats }
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
