/**
 * `vault run --watch` and `vault inject --watch` when the vault goes down or is down, against a real
 * vault server that is stopped under them: SIGTERM during the feed's reconnect backoff ends the run
 * promptly and stops the child cleanly, while the backoff still grows between attempts; with the vault
 * down at start and --fallback, the work starts from the offline copy at once instead of after the
 * feed's 5 s connect wait; a vault that accepts connections and never answers does not keep a stop
 * waiting, nor does a stop during that wait start the child.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { waitForWatchers } from '../helpers/event-feed.js'
import { alive, startWatching, type WatchedRun } from '../helpers/watched-cli.js'
import { startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const printer = fileURLToPath(new URL('../fixtures/process/print-env-forever.mjs', import.meta.url))
const watchRun = (...flags: string[]) => [
  'run',
  '--env',
  'dev',
  '--watch',
  '--no-mask',
  ...flags,
  '--',
  process.execPath,
  printer,
  'DOWN_VALUE',
]

/** Sends SIGTERM and resolves with the exit code and the milliseconds until the exit. */
async function stopTimed(run: WatchedRun): Promise<{ code: number | null; ms: number }> {
  const started = performance.now()
  run.child.kill('SIGTERM')
  const bound = new Promise<'still running'>((resolve) =>
    setTimeout(resolve, 10_000, 'still running').unref(),
  )
  const code = await Promise.race([run.exited, bound])
  return { code: code === 'still running' ? -1 : code, ms: performance.now() - started }
}

describe('--watch with the vault down', () => {
  let vault: DeliveryVault
  let work: string
  const runs: WatchedRun[] = []

  beforeAll(async () => {
    vault = await startDeliveryVault('sqlite', { DOWN_VALUE: 'value-before-the-outage' })
    work = mkdtempSync(join(tmpdir(), 'vault-watch-down-'))
    writeFileSync(join(work, 'app.conf.tpl'), 'value=${DOWN_VALUE}\n')
    // the offline copy the later runs start from
    const copied = await runCli(['run', '--env', 'dev', '--fallback', '--no-mask', '--', 'true'], {
      env: vault.env,
    })
    expect(copied.exitCode, copied.stderr).toBe(0)
  })
  afterAll(async () => {
    for (const run of runs) run.child.kill('SIGKILL')
    await vault?.server.stop().catch(() => undefined)
    vault?.home.cleanup()
    rmSync(work, { recursive: true, force: true })
  })

  it('SIGTERM while the feed backs off from a stopped vault: prompt exit, child stopped cleanly', async () => {
    const run = startWatching(vault.env, watchRun())
    runs.push(run)
    const [, pid] = await run.waitFor(/started (\d+) DOWN_VALUE=value-before-the-outage\n/)
    await waitForWatchers(vault.server, 1)
    await vault.server.stop()
    // the backoff still applies: each wait longer than the last (0.5 s, 1 s, 2 s, with ±20% jitter)
    await run.waitFor(/(?:reconnecting in [\d.]+ s\n[\s\S]*?){3}/, 20_000)
    const delays = [...run.stderr().matchAll(/reconnecting in ([\d.]+) s/g)].map((match) => Number(match[1]))
    expect(delays.slice(0, 3)).toEqual([...delays.slice(0, 3)].sort((a, b) => a - b))
    expect(delays[2]).toBeGreaterThanOrEqual(1.5)
    // now in the third wait (1.6-2.4 s): the stop must not wait for it to end
    const { code, ms } = await stopTimed(run)
    expect(code).toBe(0)
    expect(ms).toBeLessThan(1000)
    expect(run.stdout()).toContain(`stopped ${pid}\n`)
    expect(await alive(Number(pid))).toBe(false)
    console.info(`stop during the reconnect backoff: ${ms.toFixed(0)} ms`)
  })

  it('run --watch --fallback with the vault down starts the child from the copy at once, not after 5 s', async () => {
    const started = performance.now()
    const run = startWatching(vault.env, watchRun('--fallback'))
    runs.push(run)
    const [, pid] = await run.waitFor(/started (\d+) DOWN_VALUE=value-before-the-outage\n/)
    const toStart = performance.now() - started
    expect(run.stderr()).toMatch(/using the offline copy of environment 'dev' saved/)
    expect(run.stderr()).toMatch(/the change feed is not connected yet/)
    expect(toStart).toBeLessThan(3500)
    const { code, ms } = await stopTimed(run)
    expect(code).toBe(0)
    expect(ms).toBeLessThan(1000)
    expect(run.stdout()).toContain(`stopped ${pid}\n`)
    expect(await alive(Number(pid))).toBe(false)
    console.info(`run --watch --fallback, vault down: child started after ${toStart.toFixed(0)} ms`)
  })

  it('inject --watch --fallback with the vault down renders from the copy at once', async () => {
    const started = performance.now()
    const run = startWatching(
      vault.env,
      ['inject', '-i', 'app.conf.tpl', '-o', 'app.conf', '--env', 'dev', '--watch', '--fallback'],
      work,
    )
    runs.push(run)
    await run.waitFor(/watching DOWN_VALUE for changes/)
    const toRender = performance.now() - started
    expect(readFileSync(join(work, 'app.conf'), 'utf8')).toBe('value=value-before-the-outage\n')
    expect(toRender).toBeLessThan(3500)
    const { code, ms } = await stopTimed(run)
    expect(code).toBe(0)
    expect(ms).toBeLessThan(1000)
    console.info(`inject --watch --fallback, vault down: rendered after ${toRender.toFixed(0)} ms`)
  })

  it('a vault that accepts and never answers: SIGTERM during the connect wait ends the run, no child', async () => {
    // the vault's address now accepts connections and never answers (a hung host)
    const sockets: Socket[] = []
    const hung: Server = createServer((socket) => sockets.push(socket))
    await new Promise<void>((resolve) =>
      hung.listen(Number(new URL(vault.server.url).port), '127.0.0.1', resolve),
    )
    try {
      const run = startWatching(vault.env, watchRun('--fallback-only'))
      runs.push(run)
      // the feed's request is waiting for an answer: the run waits for the feed before the child
      for (let waited = 0; sockets.length === 0 && waited < 100; waited++)
        await new Promise((resolve) => setTimeout(resolve, 100))
      expect(sockets.length).toBeGreaterThan(0)
      const { code, ms } = await stopTimed(run)
      expect(code).toBe(0)
      expect(ms).toBeLessThan(1000)
      expect(run.stdout()).not.toMatch(/started/)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => hung.close(() => resolve()))
    }
  })
})
