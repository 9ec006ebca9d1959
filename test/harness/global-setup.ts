/**
 * Vitest global set-up of the integration project: one private engine and one private PostgreSQL for
 * the whole run, handed to tests through `inject('components')`. When a component cannot start, its
 * tests are skipped visibly; with VAULT_TEST_REQUIRE_COMPONENTS=1 (CI) the run fails instead.
 * Every project naming this set-up (integration, measured) shares the same components: vitest runs the
 * set-ups one after another before the first test, and each start costs seconds; the last project's
 * teardown stops them. Beside them, the compose fork servers (compose-forkserver.ts) whose `docker-compose`
 * shim the integration workers put first on PATH (`inject('composeShimDir')`, compose-shim-path.ts); a
 * shim that does not print what /usr/bin/docker-compose prints fails the run.
 */
import type { TestProject } from 'vitest/node'
import {
  type ComposeForkserver,
  forkserverUnusedReason,
  startComposeForkserver,
} from './compose-forkserver.js'
import { engineUnavailableReason, startEngine, stopEngine, type EngineInfo } from './engine.js'
import { postgresUnavailableReason, startPostgres, stopPostgres, type PostgresInfo } from './postgres.js'

export interface Components {
  engine: EngineInfo | null
  postgres: PostgresInfo | null
  unavailable: Record<string, string>
}

declare module 'vitest' {
  export interface ProvidedContext {
    components: Components
    /** The directory of the `docker-compose` shim (compose-forkserver.ts); null: the real binary. */
    composeShimDir: string | null
  }
}

const wanted = (name: string) =>
  (process.env.VAULT_TEST_COMPONENTS ?? 'engine,postgres').split(',').includes(name)
const required = process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1'

/** The components of this run and how many projects still use them (one vitest process, many projects). */
interface SharedComponents {
  started: Promise<Components>
  forkserver: Promise<ComposeForkserver | null>
  users: number
}
const sharedKey = Symbol.for('vault-test/components')
const registry = globalThis as { [sharedKey]?: SharedComponents }

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (registry[sharedKey] ??= {
    started: startComponents(),
    forkserver: forkserverUnusedReason() ? Promise.resolve(null) : startComposeForkserver(),
    users: 0,
  })
  shared.users++
  const [components, forkserver] = await Promise.all([shared.started, shared.forkserver]).catch(
    async (error: unknown) => {
      shared.users--
      await Promise.allSettled([
        shared.started.then(teardown),
        shared.forkserver.then((server) => server?.stop()),
      ])
      throw error
    },
  )
  project.provide('components', components)
  project.provide('composeShimDir', forkserver?.shimDir ?? null)
  return async () => {
    if (--shared.users > 0) return
    delete registry[sharedKey]
    if (forkserver) process.stdout.write(`\n${await forkserver.stop()}\n`)
    await teardown(components)
  }
}

async function startComponents(): Promise<Components> {
  const components: Components = { engine: null, postgres: null, unavailable: {} }
  const [engine, postgres] = await Promise.allSettled([
    wanted('engine') ? start('engine', engineUnavailableReason, startEngine) : Promise.resolve(null),
    wanted('postgres') ? start('postgres', postgresUnavailableReason, startPostgres) : Promise.resolve(null),
  ])
  for (const [name, result] of [
    ['engine', engine],
    ['postgres', postgres],
  ] as const) {
    if (result.status === 'fulfilled') {
      if (name === 'engine') components.engine = result.value as EngineInfo | null
      else components.postgres = result.value as PostgresInfo | null
      if (result.value === null) components.unavailable[name] = `not requested (VAULT_TEST_COMPONENTS)`
    } else {
      components.unavailable[name] = String((result.reason as Error).message ?? result.reason)
    }
  }
  const missing = Object.entries(components.unavailable).filter(([name]) => wanted(name))
  if (missing.length > 0) {
    const text = missing.map(([name, why]) => `  ${name}: ${why}`).join('\n')
    if (required) {
      await teardown(components)
      throw new Error(`VAULT_TEST_REQUIRE_COMPONENTS=1 and components are unavailable:\n${text}`)
    }
    process.stderr.write(`\n[vault tests] components unavailable, their tests will be SKIPPED:\n${text}\n\n`)
  }
  return components
}

async function start<T>(
  name: string,
  unavailable: () => string | undefined,
  starter: () => Promise<T>,
): Promise<T> {
  const reason = unavailable()
  if (reason) throw new Error(reason)
  return starter()
}

async function teardown(components: Components): Promise<void> {
  await Promise.allSettled([
    components.engine ? stopEngine(components.engine) : Promise.resolve(),
    components.postgres ? stopPostgres(components.postgres) : Promise.resolve(),
  ])
}
