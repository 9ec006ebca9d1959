/**
 * The one entry point commands use to reach the vault: resolve the settings (printing their
 * warnings on stderr) and build the typed API over a session.
 */
import { resolveSettings, type ConnectionFlags, type ConnectionSettings } from './settings.js'
import { createSession, type SessionOptions } from './session.js'
import { VaultApi } from './vault-api.js'

export interface Connection {
  api: VaultApi
  settings: ConnectionSettings
}

/** Resolves the settings from `flags` and the environment, passing each warning line to `warn`. */
export async function resolveConnectionSettings(
  flags: ConnectionFlags,
  warn: (line: string) => void,
): Promise<ConnectionSettings> {
  const { settings, warnings } = await resolveSettings(flags)
  for (const warning of warnings) warn(`Warning: ${warning}`)
  return settings
}

/** Resolves the settings from `flags` and the environment and returns the API client. */
export async function connect(
  flags: ConnectionFlags,
  warn: (line: string) => void,
  options: SessionOptions = {},
): Promise<Connection> {
  const settings = await resolveConnectionSettings(flags, warn)
  return { api: new VaultApi(createSession(settings, process.env, options)), settings }
}
