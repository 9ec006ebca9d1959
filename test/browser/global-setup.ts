/**
 * Vitest global set-up of the browser project: Debian's chromium (VAULT_TEST_CHROMIUM or /usr/bin/chromium)
 * and one private PostgreSQL, handed to tests through `inject('components')` and `inject('chromium')`.
 * A missing chromium or PostgreSQL skips their tests visibly; with VAULT_TEST_REQUIRE_COMPONENTS=1 (CI)
 * the run fails instead.
 */
import { existsSync } from 'node:fs'
import type { TestProject } from 'vitest/node'
import type { Components } from '../harness/global-setup.js'
import { postgresUnavailableReason, startPostgres, stopPostgres } from '../harness/postgres.js'

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: { path: string | null; unavailable?: string }
  }
}

const required = process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const path = process.env.VAULT_TEST_CHROMIUM ?? '/usr/bin/chromium'
  const chromium = existsSync(path)
    ? { path }
    : { path: null, unavailable: `${path} is missing (apt-get install -y chromium)` }
  const components: Components = { engine: null, postgres: null, unavailable: { engine: 'not used here' } }
  const reason = postgresUnavailableReason()
  if (reason) components.unavailable.postgres = reason
  else {
    try {
      components.postgres = await startPostgres()
    } catch (error) {
      components.unavailable.postgres = String((error as Error).message)
    }
  }
  const missing = [
    ...(chromium.unavailable ? [`chromium: ${chromium.unavailable}`] : []),
    ...(components.unavailable.postgres ? [`postgres: ${components.unavailable.postgres}`] : []),
  ]
  if (missing.length > 0) {
    if (required) {
      if (components.postgres) await stopPostgres(components.postgres)
      throw new Error(
        `VAULT_TEST_REQUIRE_COMPONENTS=1 and components are unavailable:\n  ${missing.join('\n  ')}`,
      )
    }
    process.stderr.write(
      `\n[vault tests] unavailable, their browser tests will be SKIPPED:\n  ${missing.join('\n  ')}\n\n`,
    )
  }
  project.provide('components', components)
  project.provide('chromium', chromium)
  return async () => {
    if (components.postgres) await stopPostgres(components.postgres)
  }
}
