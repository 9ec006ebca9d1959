/**
 * Access to the harness components from integration tests. `describe.skipIf(!engine)` keeps a skip
 * visible in the report; under VAULT_TEST_REQUIRE_COMPONENTS=1 the global set-up already failed.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import type { EngineInfo } from '../harness/engine.js'
import type { PostgresInfo } from '../harness/postgres.js'

/** The private engine of this run, or null when it is unavailable (the test must skip visibly). */
export function engineOrNull(): EngineInfo | null {
  return inject('components').engine
}

/** The private PostgreSQL of this run, or null when it is unavailable. */
export function postgresOrNull(): PostgresInfo | null {
  return inject('components').postgres
}

/** Why a component is missing, for a skip message. */
export function unavailableReason(name: 'engine' | 'postgres'): string {
  return inject('components').unavailable[name] ?? 'available'
}

/** Creates an empty database on the private cluster and returns its URL. */
export async function createDatabase(info: PostgresInfo, prefix = 'vault_test'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const client = new pg.Client({ connectionString: info.url })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  return info.url.replace(/\/postgres$/, `/${name}`)
}

/** Runs `text` ($1-style placeholders) on the PostgreSQL database at `url`, outside any vault; its rows. */
export async function queryDatabase<R extends Record<string, unknown> = Record<string, string | number>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, params)).rows as R[]
  } finally {
    await client.end()
  }
}
