/**
 * `vault export`: every secret of an environment from one API call, formatted, to stdout or to a
 * mode-600 file written atomically.
 */
import type { VaultApi } from '../client/vault-api.js'
import type { EnvFileReader } from './dotenv.js'
import { formatSecrets, type ExportFormat } from './format.js'
import { writeFileAtomic600 } from './write-file.js'

export interface ExportOptions {
  environment?: string
  format: ExportFormat
  outputFile?: string
}

export interface ExportOutcome {
  text: string
  count: number
  caveats: Record<string, EnvFileReader[]>
}

/** Reads and formats the environment's secrets (sorted by name); writes the file when asked. */
export async function exportSecrets(api: VaultApi, options: ExportOptions): Promise<ExportOutcome> {
  const secrets = await api.listSecrets(options.environment)
  const values = Object.fromEntries(
    [...secrets].sort((a, b) => (a.name < b.name ? -1 : 1)).map((secret) => [secret.name, secret.value]),
  )
  const formatted = await formatSecrets(values, options.format)
  if (options.outputFile) await writeFileAtomic600(options.outputFile, formatted.text)
  return { text: formatted.text, count: secrets.length, caveats: formatted.caveats }
}
