/**
 * `vault env list` in process on a real SQLite file initialised by `vault server init`: one slug a
 * line on stdout (what a script reads), --json's shape, and an unknown project (exit 5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import EnvList from '../../../../src/commands/env/list.js'
import { runCommand } from '../../../helpers/run-command.js'
import { initialisedAdminStore, type AdminStore } from '../../../helpers/admin-store.js'

// a database initialised in the hook: seconds on a loaded machine
const storeSetup = 60_000

let store: AdminStore
beforeAll(async () => {
  store = await initialisedAdminStore()
}, storeSetup)
afterAll(() => store?.cleanup())

describe('vault env list', () => {
  it('prints one slug a line, the environments server init created', async () => {
    const plain = await runCommand(EnvList, ['-p', 'homelab'], { env: store.env })
    expect(plain.exitCode, plain.stderr).toBe(0)
    expect(plain.stdout.split('\n').filter(Boolean).sort()).toEqual(['dev', 'prod', 'staging'])
    expect(plain.stdout.endsWith('\n')).toBe(true)
  })

  it('answers --json with slugs and display names', async () => {
    const json = await runCommand(EnvList, ['-p', 'homelab', '--json'], { env: store.env })
    expect(json.exitCode, json.stderr).toBe(0)
    const { environments } = JSON.parse(json.stdout) as { environments: { slug: string; name: string }[] }
    expect(environments.map((environment) => environment.slug).sort()).toEqual(['dev', 'prod', 'staging'])
  })

  it('refuses an unknown project (exit 5) and a missing --project (exit 2)', async () => {
    const unknown = await runCommand(EnvList, ['-p', 'nowhere'], { env: store.env })
    expect(unknown.exitCode).toBe(5)
    expect(unknown.stdout).toBe('')
    const missing = await runCommand(EnvList, [], { env: store.env })
    expect(missing.exitCode).toBe(2)
  })
})
