/**
 * The output formats of `vault export`: dotenv (default), json, yaml and shell (`export K='v'`).
 * Pure functions from a name-to-value map to text; nothing here writes anywhere.
 */
import { yamlModule } from '../text/yaml-module.js'
import { formatDotenv, type EnvFileReader } from '../text/dotenv.js'

/** The formats `vault export --format` accepts. */
export const exportFormats = ['dotenv', 'json', 'yaml', 'shell'] as const
export type ExportFormat = (typeof exportFormats)[number]

export interface FormattedExport {
  text: string
  /** Secrets (by name) that some env-file readers would not read back unchanged (dotenv only). */
  caveats: Record<string, EnvFileReader[]>
}

/** Formats the secrets in `format`; the order of `secrets` is kept. */
export function formatSecrets(secrets: Record<string, string>, format: ExportFormat): FormattedExport {
  switch (format) {
    case 'dotenv':
      return formatDotenv(secrets)
    case 'json':
      return { text: `${JSON.stringify(secrets, null, 2)}\n`, caveats: {} }
    case 'yaml': {
      const { stringify } = yamlModule()
      const text = Object.keys(secrets).length === 0 ? '{}\n' : stringify(secrets, { lineWidth: 0 })
      return { text, caveats: {} }
    }
    case 'shell':
      return { text: formatShell(secrets), caveats: {} }
  }
}

/** `export NAME='value'` lines that any POSIX shell reads back exactly. */
function formatShell(secrets: Record<string, string>): string {
  return Object.entries(secrets)
    .map(([name, value]) => `export ${name}=${shellQuote(value)}\n`)
    .join('')
}

/** A single-quoted POSIX shell word for `value` (a `'` becomes `'\''`). */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}
