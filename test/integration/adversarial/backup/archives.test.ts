/**
 * The hostile archive corpus (hostile-archives.ts) against `vault restore` and `vault restore --verify`
 * on SQLite and PostgreSQL. Property of every row: the archive is refused with an IntegrityError (exit
 * 8) naming why, AND the live database is unchanged (SQLite: the same bytes; PostgreSQL: the same rows).
 * The genuine archive restores, so the refusals come from the attack, not from the set-up.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backupDatabase } from '../../../../src/backup/backup.js'
import { restoreArchive } from '../../../../src/backup/restore.js'
import { verifyArchive } from '../../../../src/backup/verify.js'
import { ExitCode } from '../../../../src/errors.js'
import { runCli } from '../../../helpers/cli.js'
import { unavailableReason } from '../../../helpers/components.js'
import { hostileArchives } from './hostile-archives.js'
import { engines, liveState, startVictim, type Victim } from './victim.js'

const work = mkdtempSync(join(tmpdir(), 'vault-hostile-archives-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe.each(engines)('hostile archives against restore on $name', (engine) => {
  let victim: Victim
  let genuine: string
  beforeAll(async () => {
    if (!engine.available) return
    const started = await startVictim(engine, work)
    victim = started.victim
    genuine = join(work, `${engine.name}-genuine.jsonl.gz`)
    await backupDatabase({ dbUrl: victim.dbUrl, output: genuine, encryptionKey: victim.keyHex })
    await started.vault.close()
  })

  it.skipIf(!engine.available).each(hostileArchives)(
    `$attack: refused (exit 8) and the live database unchanged (postgres: ${unavailableReason('postgres')})`,
    async ({ attack, build, refusal }) => {
      const path = join(work, `${engine.name}-${attack.replace(/\W+/g, '-').slice(0, 60)}.jsonl.gz`)
      build(genuine, path, victim.names)
      const before = await liveState(victim.dbUrl)
      const restored = await restoreArchive({
        file: path,
        dbUrl: victim.dbUrl,
        encryptionKey: victim.keyHex,
      }).catch((error: unknown) => error)
      expect(restored).toMatchObject({ code: 'ERR_INTEGRITY', exitCode: ExitCode.integrity })
      expect((restored as Error).message).toMatch(refusal)
      expect((restored as Error).message).toContain('nothing was changed')
      expect(await liveState(victim.dbUrl)).toBe(before)
      const verified = await verifyArchive(path, victim.keyHex).catch((error: unknown) => error)
      expect(verified).toMatchObject({ code: 'ERR_INTEGRITY', exitCode: ExitCode.integrity })
      expect((verified as Error).message).toMatch(refusal)
    },
  )

  it.skipIf(!engine.available)(
    'the built CLI exits 8 on a forged archive, for restore and --verify',
    async () => {
      const forged = join(work, `${engine.name}-cli-forged.jsonl.gz`)
      hostileArchives[1]!.build(genuine, forged, victim.names)
      const before = await liveState(victim.dbUrl)
      const env = { DB_URL: victim.dbUrl, ENCRYPTION_KEY: victim.keyHex }
      const restore = await runCli(['restore', forged], { env })
      expect(restore.exitCode, restore.stderr).toBe(8)
      expect(restore.stderr).toMatch(/fails its MAC/)
      const verify = await runCli(['restore', '--verify', forged], { env })
      expect(verify.exitCode, verify.stderr).toBe(8)
      expect(verify.stdout).not.toMatch(/DB_PASSWORD/)
      expect(await liveState(victim.dbUrl)).toBe(before)
    },
  )

  it.skipIf(!engine.available)('control: the genuine archive verifies and restores', async () => {
    const verified = await verifyArchive(genuine, victim.keyHex)
    expect(verified.checked.secretVersions).toBe(3)
    const restored = await restoreArchive({
      file: genuine,
      dbUrl: victim.dbUrl,
      encryptionKey: victim.keyHex,
    })
    expect(restored.checked.secretVersions).toBe(3)
  })
})
