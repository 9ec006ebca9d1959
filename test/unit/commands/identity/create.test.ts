/**
 * The admin commands in process on a real SQLite file (moved from the spawned
 * test/integration/server-admin.test.ts): identity create, list, rotate-secret and revoke, env create
 * and list, and the audit list of it all, in text and --json (each checked against test/schemas).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import AuditList from '../../../../src/commands/audit/list.js'
import AuditVerify from '../../../../src/commands/audit/verify.js'
import EnvCreate from '../../../../src/commands/env/create.js'
import EnvList from '../../../../src/commands/env/list.js'
import IdentityCreate from '../../../../src/commands/identity/create.js'
import IdentityList from '../../../../src/commands/identity/list.js'
import IdentityRevoke from '../../../../src/commands/identity/revoke.js'
import IdentityRotateSecret from '../../../../src/commands/identity/rotate-secret.js'
import { runCommand } from '../../../helpers/run-command.js'
import { initialisedAdminStore, type AdminStore } from '../../../helpers/admin-store.js'

// a real server and a database initialised in the hook: seconds on a loaded machine
const serverStart = 60_000

let store: AdminStore
beforeAll(async () => {
  store = await initialisedAdminStore()
}, serverStart)
afterAll(() => store?.cleanup())

describe('vault identity / env / audit', () => {
  it('creates, lists, rotates and revokes identities and environments, and audits it all', async () => {
    const { env } = store
    const created = await runCommand(
      IdentityCreate,
      ['ci', '--project', 'homelab', '--permissions', 'prod=read', '--json'],
      { env },
    )
    expect(created.exitCode, created.stderr).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'ci', permissions: { prod: ['read'] } })
    expect((await runCommand(EnvCreate, ['qa', '-p', 'homelab'], { env })).exitCode).toBe(0)
    expect((await runCommand(EnvList, ['-p', 'homelab'], { env })).stdout.split('\n')).toContain('qa')
    const listed = await runCommand(IdentityList, ['-p', 'homelab', '--json'], { env })
    expect(JSON.parse(listed.stdout).identities.map((identity: { name: string }) => identity.name)).toEqual([
      'homelab-deployment',
      'ci',
    ])
    expect(listed.stdout).not.toContain('vs_')
    const rotated = await runCommand(IdentityRotateSecret, ['ci', '-p', 'homelab', '--json'], { env })
    expect(JSON.parse(rotated.stdout).clientSecret).toMatch(/^vs_/)
    expect((await runCommand(IdentityRevoke, ['ci', '-p', 'homelab'], { env })).exitCode).toBe(0)
    const audit = await runCommand(AuditList, ['--json'], { env })
    expect(JSON.parse(audit.stdout).events.map((event: { action: string }) => event.action)).toEqual([
      'identity.revoke',
      'identity.rotate-secret',
      'environment.create',
      'identity.create',
      'project.init',
    ])
    const last = await runCommand(AuditList, ['--last', '2', '--json'], { env })
    expect(JSON.parse(last.stdout).events.map((event: { action: string }) => event.action)).toEqual([
      'identity.revoke',
      'identity.rotate-secret',
    ])
    expect(audit.stdout).not.toContain(JSON.parse(rotated.stdout).clientSecret)
    expect((await runCommand(AuditVerify, [], { env })).exitCode).toBe(0)
    const people = await runCommand(IdentityList, ['-p', 'homelab'], { env })
    expect(people.stdout.split('\n')[0]).toMatch(/^NAME +CLIENT ID +STATE +PERMISSIONS$/)
    expect(people.stdout).toMatch(/^ci +\S+ +revoked +prod=read$/m)
    const events = await runCommand(AuditList, [], { env })
    expect(events.stdout.split('\n')[0]).toMatch(/^SEQ +AT +ACTOR +ACTION +ENV +TARGET +RESULT$/)
    expect(events.stdout).toMatch(/ identity\.revoke +/)
  })

  it.each([
    [['ci2', '-p', 'homelab', '--permissions', 'prod=fly'], /fly/],
    [['ci3', '-p', 'homelab', '--permissions', 'nowhere=read'], /nowhere/],
  ])('identity create %j is refused with a clear message', async (argv, message) => {
    const run = await runCommand(IdentityCreate, argv, { env: store.env })
    expect(run.exitCode).not.toBe(0)
    expect(run.stderr).toMatch(message)
  })
})
