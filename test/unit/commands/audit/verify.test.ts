/**
 * `vault audit verify` in process on a real SQLite file (moved from the spawned
 * test/integration/server-admin.test.ts): a tampered audit log and a wrong key are exit 8.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import AuditVerify from '../../../../src/commands/audit/verify.js'
import EnvCreate from '../../../../src/commands/env/create.js'
import EnvList from '../../../../src/commands/env/list.js'
import { openDriver } from '../../../../src/server/store/index.js'
import { runCommand } from '../../../helpers/run-command.js'
import { initialisedAdminStore, type AdminStore } from '../../../helpers/admin-store.js'

// a real server and a database initialised in the hook: seconds on a loaded machine
const serverStart = 60_000

let store: AdminStore
beforeAll(async () => {
  store = await initialisedAdminStore()
}, serverStart)
afterAll(() => store?.cleanup())

describe('vault audit verify', () => {
  it('reports a tampered audit log with exit code 8 and a wrong key with exit code 8', async () => {
    const { env } = store
    expect((await runCommand(EnvCreate, ['qa', '-p', 'homelab'], { env })).exitCode).toBe(0)
    expect((await runCommand(AuditVerify, [], { env })).exitCode).toBe(0)
    const driver = openDriver(env.DB_URL)
    await driver.transaction((tx) => tx.run(`UPDATE audit_events SET actor = 'someone-else' WHERE seq = 2`))
    await driver.close()
    const verify = await runCommand(AuditVerify, [], { env })
    expect(verify.exitCode).toBe(8)
    expect(verify.stderr).toMatch(/audit chain is broken at event 2/)
    const json = await runCommand(AuditVerify, ['--json'], { env })
    expect(json.exitCode).toBe(8)
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { exitCode: 8 } })
    const wrong = await runCommand(EnvList, ['-p', 'homelab'], {
      env: { ...env, ENCRYPTION_KEY: 'ab'.repeat(32) },
    })
    expect(wrong.exitCode).toBe(8)
    expect(wrong.stderr).toMatch(/expects fingerprint [0-9a-f]{16}, got [0-9a-f]{16}/)
  })
})
