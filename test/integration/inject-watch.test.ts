/**
 * `vault inject --watch` against a real vault server (SQLite and PostgreSQL) and the built CLI: a burst
 * of changes to a secret the template uses rewrites the file once (atomically: a new inode, mode 600,
 * no temporary file left) and runs --exec once; a change to a secret the template does not use, and a
 * new version with the same value, rewrite nothing and run nothing; --exec never sees vault's client
 * secret; no value ever reaches stdout or stderr; Ctrl-C ends it with exit 0.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultApi } from '../../src/client/vault-api.js'
import { waitForWatchers } from '../helpers/event-feed.js'
import { deploymentApi } from '../helpers/vault-server.js'
import { startWatching, type WatchedRun } from '../helpers/watched-cli.js'
import { availableBackends, startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const canaries = ['CANARY-injw-one-5c2e', 'CANARY-injw-two-5c2e', 'CANARY-injw-three-5c2e']
const unrelatedCanary = 'CANARY-injw-unrelated-5c2e'
const secrets = { INJW_PASSWORD: canaries[0]!, INJW_USER: 'app', INJW_UNRELATED: unrelatedCanary }

/** Waits (bounded) until `read()` returns true. */
async function eventually(read: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!read()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.each(availableBackends())('vault inject --watch (%s)', (backend) => {
  let vault: DeliveryVault
  let api: VaultApi
  let dir: string
  let run: WatchedRun | undefined
  const output = () => join(dir, 'app.conf')
  const execRuns = () =>
    existsSync(join(dir, 'exec.log'))
      ? readFileSync(join(dir, 'exec.log'), 'utf8').split('\n').filter(Boolean)
      : []
  const rendered = (password: string) => `user = app\npassword = "${password}"\n`

  beforeAll(async () => {
    vault = await startDeliveryVault(backend, secrets)
    api = deploymentApi(vault.server, join(vault.home.dir, 'writer-state'))
    dir = mkdtempSync(join(vault.home.dir, 'inject-watch-'))
    writeFileSync(join(dir, 'app.conf.tpl'), 'user = ${INJW_USER}\npassword = "${INJW_PASSWORD}"\n')
  })
  afterAll(async () => {
    run?.child.kill('SIGKILL')
    await vault?.stop()
  })

  it('re-renders and runs --exec once per burst of changes, only when the output changed', async () => {
    // the reload command appends a line only when vault's client secret is not in its environment
    const exec = 'test -z "$VAULT_CLIENT_SECRET" && test -f app.conf && echo reloaded >> exec.log'
    run = startWatching(
      vault.env,
      ['inject', '-i', 'app.conf.tpl', '-o', 'app.conf', '--env', 'dev', '--watch', '--exec', exec],
      dir,
    )
    await run.waitFor(/watching INJW_PASSWORD, INJW_USER for changes/)
    expect(readFileSync(output(), 'utf8')).toBe(rendered(canaries[0]!))
    expect(statSync(output()).mode & 0o777).toBe(0o600)
    expect(execRuns()).toEqual(['reloaded'])
    await waitForWatchers(vault.server, 1)
    const firstInode = statSync(output()).ino

    // a burst: two changes close together, one rewrite, one --exec, never the intermediate value
    await api.patchSecret('INJW_PASSWORD', canaries[1]!, 'dev')
    await api.patchSecret('INJW_PASSWORD', canaries[2]!, 'dev')
    await run.waitFor(/INJW_PASSWORD changed: rendering app\.conf\.tpl again\n(.*\n)*wrote app\.conf/)
    await eventually(() => execRuns().length === 2, 'the second --exec')
    expect(readFileSync(output(), 'utf8')).toBe(rendered(canaries[2]!))
    expect(statSync(output()).mode & 0o777).toBe(0o600)
    const secondInode = statSync(output()).ino
    expect(secondInode).not.toBe(firstInode)
    expect(readdirSync(dir).sort()).toEqual(['app.conf', 'app.conf.tpl', 'exec.log'])

    // a secret the template does not use: nothing rewritten, nothing run
    await api.patchSecret('INJW_UNRELATED', `${unrelatedCanary}-2`, 'dev')
    await run.waitFor(/INJW_UNRELATED changed; app\.conf\.tpl does not use it/)
    // a new version with the same value: rendered, but the output is the same
    await api.patchSecret('INJW_USER', 'app', 'dev')
    await run.waitFor(/app\.conf unchanged: not rewritten/)
    expect(execRuns()).toHaveLength(2)
    expect(statSync(output()).ino).toBe(secondInode)
    expect(run.stderr().match(/^wrote app\.conf/gm)).toHaveLength(2)

    run.child.kill('SIGINT')
    expect(await run.exited).toBe(0)
    const shown = run.stdout() + run.stderr()
    for (const value of [...canaries, unrelatedCanary]) expect(shown).not.toContain(value)
  })

  it('refuses --watch without -o and with --check (exit 2)', async () => {
    const noOutput = startWatching(
      vault.env,
      ['inject', '-i', 'app.conf.tpl', '--env', 'dev', '--watch'],
      dir,
    )
    expect(await noOutput.exited).toBe(2)
    const check = startWatching(
      vault.env,
      ['inject', '-i', 'app.conf.tpl', '-o', 'x.conf', '--env', 'dev', '--watch', '--check'],
      dir,
    )
    expect(await check.exited).toBe(2)
    expect(existsSync(join(dir, 'x.conf'))).toBe(false)
  })
})
