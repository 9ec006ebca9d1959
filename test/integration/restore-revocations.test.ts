/**
 * Issue 33 item 8: `vault restore` (in process, as oclif runs the command) of an archive older than the live database, with a
 * real server process on it (on PostgreSQL it keeps running across the restore; a SQLite restore needs
 * it stopped). Everything the live vault retired after the backup stays retired: a revoked identity
 * and a revoked token, a client secret rotated since (its old secret and old tokens), a removed account
 * and a changed password. And a database that holds another vault (another key) is refused, unchanged,
 * unless `--replace-vault` names its fingerprint.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import AuditVerify from '../../src/commands/audit/verify.js'
import Backup from '../../src/commands/backup.js'
import Restore from '../../src/commands/restore.js'
import { runCommand } from '../helpers/run-command.js'
import { createDatabase, postgresOrNull, unavailableReason } from '../helpers/components.js'
import {
  spawnVaultProcess,
  startVaultServer,
  type ClientCredentials,
  type VaultProcess,
} from '../helpers/vault-server.js'

const work = mkdtempSync(join(tmpdir(), 'vault-restore-revocations-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const postgres = postgresOrNull()
const adminPassword = 'correct horse battery staple'

async function send(
  url: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> }
}

async function login(url: string, credentials: ClientCredentials) {
  const response = await fetch(`${url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    }),
  })
  const body = (await response.json()) as { access_token?: string }
  return { status: response.status, token: body.access_token ?? '' }
}

const signIn = (url: string, username: string, password: string) =>
  send(url, 'POST', '/api/v1/auth/signin', { body: { username, password } })

describe.each([
  { engine: 'sqlite', available: true },
  { engine: 'postgres', available: postgres !== null },
])('vault restore of an older archive ($engine)', ({ engine, available }) => {
  it.skipIf(!available)(
    `keeps every revocation made after the backup, with a server process on the database (postgres: ${unavailableReason('postgres')})`,
    async () => {
      const dbUrl =
        engine === 'sqlite'
          ? `sqlite://${join(work, 'live.db')}`
          : await createDatabase(postgres!, 'vault_revocations')
      const setup = await startVaultServer({ dbUrl })
      const keys = { dbUrl, encryptionKey: setup.encryptionKey, jwtSecret: setup.jwtSecret }
      const revokedLater = await setup.createIdentity('revoked-later', 'dev=read')
      const rotatedLater = await setup.createIdentity('rotated-later', 'dev=read')
      const tokenRevokedLater = await setup.createIdentity('token-revoked-later', 'dev=read')
      await setup.running.close()
      let server: VaultProcess = await spawnVaultProcess(keys)
      try {
        const admin = String((await signIn(server.url, 'admin', adminPassword)).body.access_token)
        for (const username of ['leaver', 'changer']) {
          const created = await send(server.url, 'POST', '/api/v1/admin/users', {
            token: admin,
            body: { username, password: `CANARY-${username}-old-pw`, role: 'member' },
          })
          expect(created.status).toBe(201)
        }
        const tokens = {
          revoked: (await login(server.url, revokedLater)).token,
          rotated: (await login(server.url, rotatedLater)).token,
          tokenRevoked: (await login(server.url, tokenRevokedLater)).token,
        }
        const archive = join(work, `${engine}.jsonl.gz`)
        const env = { DB_URL: dbUrl, ENCRYPTION_KEY: keys.encryptionKey }
        const backup = await runCommand(Backup, ['--output', archive], { env })
        expect(backup.exitCode, backup.stderr).toBe(0)

        // after the backup, the live vault retires credentials
        const identities = `/api/v1/admin/projects/${setup.projectId}/identities`
        expect(
          (await send(server.url, 'DELETE', `${identities}/revoked-later`, { token: admin })).status,
        ).toBe(200)
        const rotation = await send(server.url, 'POST', `${identities}/rotated-later/rotate-secret`, {
          token: admin,
        })
        expect(rotation.status).toBe(200)
        const rotated = {
          clientId: rotatedLater.clientId,
          clientSecret: String((rotation.body.identity as { clientSecret: string }).clientSecret),
        }
        const revoke = await fetch(`${server.url}/api/v1/auth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: tokens.tokenRevoked }),
        })
        expect(revoke.status).toBe(200)
        expect(
          (await send(server.url, 'DELETE', '/api/v1/admin/users/leaver', { token: admin })).status,
        ).toBe(200)
        const changed = await send(server.url, 'PUT', '/api/v1/admin/users/changer/password', {
          token: admin,
          body: { password: 'CANARY-changer-new-pw' },
        })
        expect(changed.status).toBe(200)

        if (engine === 'sqlite') await server.stop()
        const restored = await runCommand(Restore, [archive], { env })
        expect(restored.exitCode, restored.stderr).toBe(0)
        if (engine === 'sqlite') server = await spawnVaultProcess(keys)
        else expect(server.child.exitCode).toBeNull()

        const whoami = async (token: string) =>
          (await send(server.url, 'GET', '/api/v1/whoami', { token })).status
        expect(await whoami(tokens.revoked), 'a token of an identity revoked after the backup').toBe(401)
        expect((await login(server.url, revokedLater)).status, 'an identity revoked after the backup').toBe(
          401,
        )
        expect(await whoami(tokens.rotated), 'a token of a secret rotated after the backup').toBe(401)
        expect((await login(server.url, rotatedLater)).status, 'a secret rotated after the backup').toBe(401)
        expect(await whoami((await login(server.url, rotated)).token)).toBe(200)
        expect(await whoami(tokens.tokenRevoked), 'a token revoked after the backup').toBe(401)
        expect((await signIn(server.url, 'leaver', 'CANARY-leaver-old-pw')).status, 'a removed account').toBe(
          401,
        )
        expect(
          (await signIn(server.url, 'changer', 'CANARY-changer-old-pw')).status,
          'a changed password',
        ).toBe(401)
        expect((await signIn(server.url, 'changer', 'CANARY-changer-new-pw')).status).toBe(200)
        // the restore itself happened: the deployment identity still reads, and the chain verifies
        expect(await whoami((await login(server.url, setup.deploymentCredentials)).token)).toBe(200)
        const verified = await runCommand(AuditVerify, [], { env })
        expect(verified.exitCode, verified.stderr).toBe(0)
        expect(restored.stdout + restored.stderr).not.toContain('CANARY')
        expect(restored.stderr).toMatch(
          /Kept what the replaced database retired after the backup: 1 identities revoked, 1 client secrets rotated, 3 tokens revoked, 1 passwords changed, 1 accounts removed/,
        )
      } finally {
        await server.stop()
      }
    },
    240_000,
  )

  it.skipIf(!available)(
    'refuses to restore over another vault unless --replace-vault names it',
    async () => {
      const source =
        engine === 'sqlite'
          ? `sqlite://${join(work, 'source.db')}`
          : await createDatabase(postgres!, 'vault_source')
      const origin = await startVaultServer({ dbUrl: source })
      await origin.running.close()
      const archive = join(work, `${engine}-source.jsonl.gz`)
      const env = { DB_URL: source, ENCRYPTION_KEY: origin.encryptionKey }
      expect((await runCommand(Backup, ['--output', archive], { env })).exitCode).toBe(0)

      const otherUrl =
        engine === 'sqlite'
          ? `sqlite://${join(work, 'other.db')}`
          : await createDatabase(postgres!, 'vault_other')
      const other = await startVaultServer({ dbUrl: otherUrl, project: 'other-vault' })
      await other.running.close()
      const target = { DB_URL: otherUrl, ENCRYPTION_KEY: origin.encryptionKey }
      const refused = await runCommand(Restore, [archive], { env: target })
      expect(refused.exitCode, refused.stderr).toBe(6)
      expect(refused.stderr).toMatch(
        /holds another vault \(key fingerprint [0-9a-f]{16}; the archive's is [0-9a-f]{16}\)/,
      )
      const fingerprint = /--replace-vault ([0-9a-f]{16})/.exec(refused.stderr)![1]!
      const wrong = await runCommand(Restore, [archive, '--replace-vault', '0000000000000000'], {
        env: target,
      })
      expect(wrong.exitCode).toBe(6)
      expect(wrong.stderr).toMatch(/--replace-vault names 0000000000000000, but the database holds/)
      const hostile = await runCommand(
        Restore,
        [archive, '--replace-vault', '\u001b]0;pwned\u0007$(touch x)'],
        {
          env: target,
        },
      )
      expect(hostile.exitCode).toBe(6)
      expect(hostile.stderr).not.toContain('\u001b')
      expect(hostile.stderr).not.toMatch(/pwned|touch/)

      // nothing was changed: the other vault still starts with its own key and holds its project
      const still = await spawnVaultProcess({
        dbUrl: otherUrl,
        encryptionKey: other.encryptionKey,
        jwtSecret: other.jwtSecret,
      })
      try {
        expect((await login(still.url, other.deploymentCredentials)).status).toBe(200)
      } finally {
        await still.stop()
      }

      const replaced = await runCommand(Restore, [archive, '--replace-vault', fingerprint], { env: target })
      expect(replaced.exitCode, replaced.stderr).toBe(0)
      expect(replaced.stderr).not.toMatch(/Kept what the replaced database retired/)
      const now = await spawnVaultProcess({
        dbUrl: otherUrl,
        encryptionKey: origin.encryptionKey,
        jwtSecret: origin.jwtSecret,
      })
      try {
        expect((await login(now.url, origin.deploymentCredentials)).status).toBe(200)
      } finally {
        await now.stop()
      }
    },
    240_000,
  )
})
