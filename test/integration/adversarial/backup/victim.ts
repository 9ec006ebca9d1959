/**
 * The victim vault of the adversarial backup and database tests, on SQLite or on the private
 * PostgreSQL: project `demo` (dev, prod), a read/write deployment identity, a read-only identity the
 * attacker controls, one secret written three times through the API, and the live state that must not
 * change (the SQLite files byte for byte; every PostgreSQL table's rows).
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tableSummaries } from '../../../../src/backup/archive-write.js'
import { takeSnapshot } from '../../../../src/backup/snapshot.js'
import { createIdentity } from '../../../../src/server/identities.js'
import { createDatabase, postgresOrNull } from '../../../helpers/components.js'
import {
  login,
  newKeyHex,
  putSecret,
  seedProject,
  startVault,
  type Credentials,
  type RunningVault,
} from '../../backup-fixture.js'
import type { SeededNames } from './hostile-archives.js'

export interface Engine {
  name: 'sqlite' | 'postgres'
  available: boolean
  newDatabase(work: string): Promise<string>
}

export const engines: Engine[] = [
  {
    name: 'sqlite',
    available: true,
    newDatabase: async (work) => `sqlite://${join(mkdtempSync(join(work, 'db-')), 'vault.db')}`,
  },
  {
    name: 'postgres',
    available: postgresOrNull() !== null,
    newDatabase: () => createDatabase(postgresOrNull()!, 'vault_adversarial'),
  },
]

export interface Victim {
  dbUrl: string
  keyHex: string
  names: SeededNames
  deployment: Credentials
  reader: Credentials
}

/** Seeds a victim vault on a running server. */
export async function seedVictim(vault: RunningVault, dbUrl: string, keyHex: string): Promise<Victim> {
  const deployment = await seedProject(vault)
  const { token } = await login(vault.url, deployment)
  for (const value of ['first-value', 'second-value', 'third-value']) {
    await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', value)
  }
  const reader = await vault.context.driver.transaction((tx) =>
    createIdentity(tx, vault.context.keyring, {
      projectId: deployment.projectId,
      name: 'reader',
      permissions: { dev: ['read'] },
    }),
  )
  const rows = await vault.context.driver.transaction((tx) =>
    tx.all<{ id: string; client_id: string }>(`SELECT id, client_id FROM identities`),
  )
  const idOf = (clientId: string) => rows.find((row) => row.client_id === clientId)!.id
  return {
    dbUrl,
    keyHex,
    deployment,
    reader: {
      clientId: reader.identity.clientId,
      clientSecret: reader.clientSecret,
      projectId: deployment.projectId,
    },
    names: {
      readerId: reader.identity.id,
      deploymentId: idOf(deployment.clientId),
      secretName: 'DB_PASSWORD',
    },
  }
}

/** Starts a fresh victim vault on `engine`; the caller closes it. */
export async function startVictim(
  engine: Engine,
  work: string,
): Promise<{ vault: RunningVault; victim: Victim }> {
  const keyHex = newKeyHex()
  const dbUrl = await engine.newDatabase(work)
  const vault = await startVault(dbUrl, keyHex)
  return { vault, victim: await seedVictim(vault, dbUrl, keyHex) }
}

/** The live state: on SQLite the SHA-256 of the database files' bytes, on PostgreSQL every table's rows. */
export async function liveState(dbUrl: string): Promise<string> {
  if (dbUrl.startsWith('sqlite://')) {
    const path = dbUrl.slice('sqlite://'.length)
    const hash = createHash('sha256')
    for (const suffix of ['', '-wal']) {
      hash.update(`${suffix}:`)
      if (existsSync(`${path}${suffix}`)) hash.update(readFileSync(`${path}${suffix}`))
    }
    return hash.digest('hex')
  }
  return JSON.stringify(tableSummaries(await takeSnapshot(dbUrl)))
}
