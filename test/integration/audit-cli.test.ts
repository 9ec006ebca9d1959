/**
 * `vault audit verify`, `vault audit checkpoint` and `vault audit verify --against` (in process: the
 * commands' own classes, as oclif runs them) on SQLite and PostgreSQL. The attack replayed: the audit tail cut back to a head row saved earlier (its
 * MAC is genuine), after reads only, so nothing inside the database shows it; the checkpoint kept
 * elsewhere does (exit 8, "truncated"). A checkpoint edited by hand fails its MAC.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import AuditCheckpoint from '../../src/commands/audit/checkpoint.js'
import AuditVerify from '../../src/commands/audit/verify.js'
import { openDriver } from '../../src/server/store/index.js'
import { runCommand } from '../helpers/run-command.js'
import { unavailableReason } from '../helpers/components.js'
import { engines, startVictim } from './adversarial/backup/victim.js'
import { login, readSecret, startVault } from './backup-fixture.js'

const work = mkdtempSync(join(tmpdir(), 'vault-audit-cli-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe.each(engines)('vault audit on $name', (engine) => {
  it.skipIf(!engine.available)(
    `checkpoint, verify --against, and a replayed older head (postgres: ${unavailableReason('postgres')})`,
    async () => {
      const { vault, victim } = await startVictim(engine, work)
      const [saved] = await vault.context.driver.transaction((tx) =>
        tx.all(`SELECT seq, hash, mac FROM audit_head WHERE id = 1`),
      )
      const { token } = await login(vault.url, victim.deployment)
      for (let i = 0; i < 3; i++) await readSecret(vault.url, token!, 'dev', 'DB_PASSWORD')
      await vault.close()
      const env = { DB_URL: victim.dbUrl, ENCRYPTION_KEY: victim.keyHex }

      const verified = await runCommand(AuditVerify, [], { env })
      expect(verified.exitCode, verified.stderr).toBe(0)
      expect(verified.stderr).toMatch(
        /audit chain intact: \d+ events; protected rows and version events check out/,
      )

      const checkpoint = await runCommand(AuditCheckpoint, [], { env })
      expect(checkpoint.exitCode, checkpoint.stderr).toBe(0)
      expect(checkpoint.stdout).toMatch(
        /^vault-audit-checkpoint v1 events=\d+ hash=[0-9a-f]{64} at=\S+Z mac=[0-9a-f]{64}\n$/,
      )
      const file = join(work, `${engine.name}-checkpoint.txt`)
      writeFileSync(file, checkpoint.stdout)
      const asJson = await runCommand(AuditCheckpoint, ['--json'], { env })
      expect(JSON.parse(asJson.stdout)).toMatchObject({
        events: Number(/events=(\d+)/.exec(checkpoint.stdout)![1]),
        checkpoint: expect.stringMatching(/^vault-audit-checkpoint v1 /),
      })

      const against = await runCommand(AuditVerify, ['--against', file], { env })
      expect(against.exitCode, against.stderr).toBe(0)
      expect(against.stderr).toMatch(/audit log matches the checkpoint/)
      const fromStdin = await runCommand(AuditVerify, ['--against', '-'], { env, input: asJson.stdout })
      expect(fromStdin.exitCode, fromStdin.stderr).toBe(0)

      const forged = join(work, `${engine.name}-forged.txt`)
      writeFileSync(
        forged,
        checkpoint.stdout.replace(/events=(\d+)/, (_, n: string) => `events=${Number(n) - 1}`),
      )
      const forgedRun = await runCommand(AuditVerify, ['--against', forged], { env })
      expect(forgedRun.exitCode).toBe(8)
      expect(forgedRun.stderr).toMatch(/the checkpoint fails its MAC/)
      const garbage = join(work, `${engine.name}-garbage.txt`)
      writeFileSync(garbage, 'nothing here\n')
      expect((await runCommand(AuditVerify, ['--against', garbage], { env })).exitCode).toBe(2)

      const raw = openDriver(victim.dbUrl)
      try {
        await raw.transaction(async (tx) => {
          await tx.run(`DELETE FROM audit_events WHERE seq > ?`, [saved!.seq!])
          await tx.run(`UPDATE audit_head SET seq = ?, hash = ?, mac = ? WHERE id = 1`, [
            saved!.seq!,
            saved!.hash!,
            saved!.mac!,
          ])
        })
      } finally {
        await raw.close()
      }
      const blind = await runCommand(AuditVerify, [], { env })
      expect(blind.exitCode, 'a replayed head of reads only is invisible without a checkpoint').toBe(0)
      const caught = await runCommand(AuditVerify, ['--against', file, '--json'], { env })
      expect(caught.exitCode).toBe(8)
      expect(JSON.parse(caught.stdout)).toMatchObject({
        error: { message: expect.stringMatching(/its tail was truncated/) },
      })
      const restarted = await startVault(victim.dbUrl, victim.keyHex)
      await restarted.close()
    },
  )
})
