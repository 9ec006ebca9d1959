/**
 * `vault identity update` in process on a real SQLite file initialised by `vault server init`: an OIDC
 * trust set (--json's shape, a note on stderr otherwise), replaced whole, removed with --remove-oidc,
 * and the usage errors that change nothing: neither the trust nor --remove-oidc, both, and an issuer
 * that is not https (exit 2); an unknown identity (exit 5). Tokens against the trust: the integration
 * test test/integration/oidc.test.ts, with a real issuer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import IdentityCreate from '../../../../src/commands/identity/create.js'
import IdentityUpdate from '../../../../src/commands/identity/update.js'
import { runCommand } from '../../../helpers/run-command.js'
import { initialisedAdminStore, type AdminStore } from '../../../helpers/admin-store.js'

// a database initialised in the hook: seconds on a loaded machine
const storeSetup = 60_000
const issuer = 'https://token.actions.githubusercontent.com'
const trust = (subject: string) => [
  '--oidc-issuer',
  issuer,
  '--oidc-audience',
  'https://vault.example.com',
  '--oidc-subject',
  subject,
]

let store: AdminStore
let clientId: string
beforeAll(async () => {
  store = await initialisedAdminStore()
  const created = await runCommand(
    IdentityCreate,
    ['ci', '-p', 'homelab', '--permissions', 'prod=read', '--json'],
    {
      env: store.env,
    },
  )
  if (created.exitCode !== 0) throw new Error(`identity create failed: ${created.stderr}`)
  ;({ clientId } = JSON.parse(created.stdout) as { clientId: string })
}, storeSetup)
afterAll(() => store?.cleanup())

const update = (args: string[]) => runCommand(IdentityUpdate, [...args, '-p', 'homelab'], { env: store.env })

describe('vault identity update', () => {
  it('sets a trust (--json), replaces it whole by name or client id, and removes it', async () => {
    const set = await update(['ci', ...trust('repo:acme/stack:ref:refs/heads/main'), '--json'])
    expect(set.exitCode, set.stderr).toBe(0)
    expect(JSON.parse(set.stdout)).toMatchObject({
      clientId,
      oidc: { issuer, audience: 'https://vault.example.com', subject: 'repo:acme/stack:ref:refs/heads/main' },
    })
    const replaced = await update([clientId, ...trust('repo:acme/stack:environment:prod')])
    expect(replaced.exitCode, replaced.stderr).toBe(0)
    expect(replaced.stdout).toBe('')
    expect(replaced.stderr).toContain(`identity ${clientId} now trusts OIDC tokens of ${issuer}`)
    const removed = await update(['ci', '--remove-oidc', '--json'])
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(JSON.parse(removed.stdout)).toMatchObject({ clientId, oidc: null })
    const again = await update(['ci', '--remove-oidc'])
    expect(again.stderr).toContain('identity ci trusts no OIDC token')
  })

  it.each([
    ['neither a trust nor --remove-oidc', ['ci'], 2, /--oidc-issuer/],
    [
      'both a trust and --remove-oidc',
      ['ci', ...trust('s:x'), '--remove-oidc'],
      2,
      /pass either --oidc-issuer/,
    ],
    [
      'an issuer that is not https',
      ['ci', '--oidc-issuer', 'http://issuer.example', '--oidc-audience', 'a', '--oidc-subject', 's:x'],
      2,
      /https/,
    ],
    ['an unknown identity', ['nobody', ...trust('s:x')], 5, /nobody/],
  ])('refuses %s and changes nothing', async (_case, args, exitCode, message) => {
    const before = await update(['ci', ...trust('repo:acme/stack:ref:refs/heads/kept'), '--json'])
    expect(before.exitCode, before.stderr).toBe(0)
    const refused = await update(args)
    expect(refused.exitCode, refused.stderr).toBe(exitCode)
    expect(refused.stderr).toMatch(message)
    const after = await update(['ci', ...trust('repo:acme/stack:ref:refs/heads/kept'), '--json'])
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout))
  })
})
