/**
 * A genuine archive of a given size, written by `backupDatabase` from a SQLite vault filled through the
 * server's own write paths: `versions` secret versions over 300 names (each with the audit event that
 * wrote it) and `events` more audit events (reads). 15,000 versions and 130,000 events inflate to about
 * 59 MiB, just under the 64 MiB cap of restore.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { backupDatabase } from '../../../../src/backup/backup.js'
import { appendAudit } from '../../../../src/server/audit/audit.js'
import { createIdentity, createProject } from '../../../../src/server/identities.js'
import { loadKeyring } from '../../../../src/server/keys/keyring.js'
import { writeSecret } from '../../../../src/server/secrets/secrets.js'
import { createVaultContext } from '../../../../src/server/server.js'
import { openStore } from '../../../../src/server/migrations.js'

export interface GenuineArchive {
  path: string
  keyHex: string
}

/** Writes `<directory>/<name>.jsonl.gz` (and its source database `<name>.db`). */
export async function buildGenuineArchive(options: {
  directory: string
  name: string
  versions: number
  events: number
}): Promise<GenuineArchive> {
  const keyHex = randomBytes(32).toString('hex')
  const dbUrl = `sqlite://${join(options.directory, `${options.name}.db`)}`
  const driver = await openStore(dbUrl)
  const keyring = await loadKeyring(driver, Buffer.from(keyHex, 'hex'))
  const context = createVaultContext({ driver, keyring, config: { jwtSecret: randomBytes(32) } })
  const projectId = await driver.transaction(async (tx) => {
    const project = await createProject(tx, 'big', ['dev'])
    await createIdentity(tx, keyring, {
      projectId: project.id,
      name: 'big-deployment',
      permissions: { dev: ['read', 'write'] },
    })
    return project.id
  })
  const scope = { projectId, environment: 'dev', actor: 'filler', requestId: 'fill', ip: '127.0.0.1' }
  for (let start = 0; start < options.versions; start += 1000) {
    await driver.transaction(async (tx) => {
      for (let i = start; i < Math.min(options.versions, start + 1000); i++) {
        await writeSecret(
          { context, tx, scope },
          { name: `SECRET_${i % 300}`, value: randomBytes(24).toString('base64url'), mode: 'upsert' },
        )
      }
    })
  }
  for (let start = 0; start < options.events; start += 5000) {
    await driver.transaction(async (tx) => {
      for (let i = start; i < Math.min(options.events, start + 5000); i++) {
        await appendAudit(tx, keyring.auditKey, {
          ...scope,
          action: 'secret.read',
          target: `SECRET_${i % 300}`,
          result: 'ok',
        })
      }
    })
  }
  await driver.close()
  const path = join(options.directory, `${options.name}.jsonl.gz`)
  await backupDatabase({ dbUrl, output: path, encryptionKey: keyHex })
  return { path, keyHex }
}
