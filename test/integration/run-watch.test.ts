/**
 * `vault run --watch` against a real vault server: a plain command is restarted (SIGTERM, wait, start
 * again) with the new value after a PATCH; two changes close together give one restart; SIGTERM to
 * `vault run` stops the child and ends the run. A refusal of the feed (no read permission left) keeps
 * the command running and says so.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultApi } from '../../src/client/vault-api.js'
import { createDatabase, postgresOrNull } from '../helpers/components.js'
import { waitForWatchers } from '../helpers/event-feed.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { alive, startWatching, type WatchedRun } from '../helpers/watched-cli.js'
import {
  deploymentApi,
  startVaultServer,
  type TestVault,
  deploymentVariables,
} from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const adapters = [
  { adapter: 'sqlite', available: true },
  { adapter: 'postgres', available: postgres !== null },
]
const printer = fileURLToPath(new URL('../fixtures/process/print-env-forever.mjs', import.meta.url))

describe.each(adapters)('vault run --watch (a plain command) on $adapter', ({ adapter, available }) => {
  let server: TestVault
  let home: TempHome
  let api: VaultApi
  let env: Record<string, string>
  const work = mkdtempSync(join(tmpdir(), 'vault-watch-'))
  const runs: WatchedRun[] = []

  beforeAll(async () => {
    if (!available) return
    server = await startVaultServer({
      dbUrl: adapter === 'postgres' ? await createDatabase(postgres!) : undefined,
      // the feed polls every 50 ms (1 s in production): a watcher hears of a change sooner
      timings: { feed: { pollMs: 50 } },
    })
    home = createTempHome()
    api = deploymentApi(server, join(work, 'state'))
    env = {
      ...home.env,
      ...deploymentVariables(server),
    }
    await api.putSecret('WATCHED', 'value-one', 'dev')
  })
  afterAll(async () => {
    for (const run of runs) run.child.kill('SIGKILL')
    await server?.stop()
    home?.cleanup()
    rmSync(work, { recursive: true, force: true })
  })

  it.skipIf(!available)(
    'restarts the child with the new value after a PATCH; SIGTERM stops everything',
    async () => {
      const run = startWatching(env, [
        'run',
        '--env',
        'dev',
        '--watch',
        '--no-mask',
        '--',
        process.execPath,
        printer,
        'WATCHED',
      ])
      runs.push(run)
      const first = await run.waitFor(/started (\d+) WATCHED=value-one\n/)
      // the feed is connected once the server has audited the subscription
      await waitForWatchers(server, 1)
      await api.patchSecret('WATCHED', 'value-two', 'dev')
      await api.patchSecret('WATCHED', 'value-three', 'dev')
      const second = await run.waitFor(/started (\d+) WATCHED=value-three\n/)
      expect(run.stdout()).toContain(`stopped ${first[1]}\n`)
      expect(await alive(Number(first[1]))).toBe(false)
      // two changes close together: one restart, never a child with the intermediate value
      expect(run.stdout().match(/^started /gm)).toHaveLength(2)
      expect(run.stdout()).not.toContain('value-two')
      expect(run.stderr()).toContain('WATCHED changed')
      expect(run.stderr()).not.toContain('value-')
      run.child.kill('SIGTERM')
      expect(await run.exited).toBe(0)
      expect(run.stdout()).toContain(`stopped ${second[1]}\n`)
      expect(await alive(Number(second[1]))).toBe(false)
    },
  )

  it.skipIf(!available)(
    'after its token is revoked mid-stream, reconnects, logs in again and misses no change',
    async () => {
      await api.putSecret('RESUMED', 'resumed-one', 'dev')
      const run = startWatching(env, [
        'run',
        '--env',
        'dev',
        '--watch',
        '--no-mask',
        '--',
        process.execPath,
        printer,
        'RESUMED',
      ])
      runs.push(run)
      await run.waitFor(/started \d+ RESUMED=resumed-one\n/)
      // the child starts only once the feed is connected
      const { driver } = server.running.context
      await driver.transaction((tx) =>
        tx.run(`UPDATE access_tokens SET revoked_at = ? WHERE revoked_at IS NULL`, [
          new Date().toISOString(),
        ]),
      )
      await api.patchSecret('RESUMED', 'resumed-two', 'dev')
      await run.waitFor(/started \d+ RESUMED=resumed-two\n/)
      expect(run.stderr()).toMatch(/change feed: connection lost; reconnecting/)
      run.child.kill('SIGTERM')
      expect(await run.exited).toBe(0)
    },
  )

  it.skipIf(!available)('masks the new value too after a restart (output not a terminal)', async () => {
    await api.putSecret('MASKED_WATCH', 'CANARY-watch-old-4a1f', 'dev')
    const run = startWatching(env, [
      'run',
      '--env',
      'dev',
      '--watch',
      '--',
      process.execPath,
      printer,
      'MASKED_WATCH',
    ])
    runs.push(run)
    await run.waitFor(/started \d+ MASKED_WATCH=\*{8}\n/)
    await api.patchSecret('MASKED_WATCH', 'CANARY-watch-new-4a1f', 'dev')
    await run.waitFor(/stopped \d+\nstarted \d+ MASKED_WATCH=\*{8}\n/)
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
    expect(run.stdout() + run.stderr()).not.toContain('CANARY-watch')
  })
})
