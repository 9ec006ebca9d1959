/**
 * A real vault server for the delivery tests (masking, fallback, inject), on SQLite or on the run's
 * private PostgreSQL, with a temporary HOME and the environment the CLI needs to reach it.
 */
import { join } from 'node:path'
import { createDatabase, postgresOrNull } from '../helpers/components.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import {
  deploymentApi,
  startVaultServer,
  type TestVault,
  deploymentVariables,
} from '../helpers/vault-server.js'

export type Backend = 'sqlite' | 'postgres'

/** The backends available in this run (PostgreSQL only when the harness started it). */
export function availableBackends(): Backend[] {
  return postgresOrNull() ? ['sqlite', 'postgres'] : ['sqlite']
}

export interface DeliveryVault {
  server: TestVault
  home: TempHome
  /** The environment that points the CLI at this vault with the deployment identity. */
  env: Record<string, string>
  stop(): Promise<void>
}

/** Starts a vault on `backend` and stores `secrets` in its dev environment. */
export async function startDeliveryVault(
  backend: Backend,
  secrets: Record<string, string>,
): Promise<DeliveryVault> {
  const postgres = postgresOrNull()
  const dbUrl =
    backend === 'postgres' && postgres ? await createDatabase(postgres, 'vault_delivery') : undefined
  // the feed polls the store every 50 ms (1 s in production): a watcher hears of a change sooner
  const server = await startVaultServer({ dbUrl, timings: { feed: { pollMs: 50 } } })
  const home = createTempHome()
  const api = deploymentApi(server, join(home.dir, 'seed-state'))
  for (const [name, value] of Object.entries(secrets)) await api.putSecret(name, value, 'dev')
  const env = {
    ...home.env,
    ...deploymentVariables(server),
  }
  return {
    server,
    home,
    env,
    async stop() {
      await server.stop()
      home.cleanup()
    },
  }
}
