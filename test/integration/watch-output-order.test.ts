/**
 * `vault run --watch --mask` with stdout and stderr as one output (`2>&1`), against a real vault: the
 * masked copy holds the last bytes of each of the child's writes for a moment (until the next write or
 * 20 ms of quiet), and the run's own notes (a change, the restart) must not land inside a line of the
 * child's. A child writing a line every 2 ms is restarted by three PATCHes; every line of the combined
 * output must be whole: the child's or the run's.
 */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runJs } from '../helpers/cli.js'
import { waitForWatchers } from '../helpers/event-feed.js'
import { deploymentApi } from '../helpers/vault-server.js'
import { startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'
import { join } from 'node:path'

const ticker = `
let i = 0
process.on('SIGTERM', () => process.exit(0))
setInterval(() => process.stdout.write('tick ' + process.env.TICK_SECRET.length + ' ' + i++ + '\\n'), 2)
`

describe('vault run --watch under 2>&1: the run notes never cut a line of the child', () => {
  let vault: DeliveryVault
  beforeAll(async () => {
    vault = await startDeliveryVault('sqlite', { TICK_SECRET: 'tick-secret-value-one' })
  })
  afterAll(async () => vault?.stop())

  it('restarts on three PATCHes with every line whole', async () => {
    const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`
    const line = `exec ${quoted(process.execPath)} ${quoted(runJs)} run --env dev --watch --mask -- ${quoted(process.execPath)} -e "$TICKER" 2>&1`
    const child = spawn('sh', ['-c', line], {
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...vault.env, TICKER: ticker },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    const until = async (test: () => boolean, what: string) => {
      for (let waited = 0; !test(); waited++) {
        if (waited > 300) throw new Error(`timed out waiting for ${what}:\n${output.slice(-2000)}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    try {
      await until(() => /tick 21 50\n/.test(output), 'the first ticks')
      await waitForWatchers(vault.server, 1)
      const api = deploymentApi(vault.server, join(vault.home.dir, 'patch-state'))
      // three restarts: each 'changed' note is written while the child is writing
      for (const value of [
        'tick-secret-value-second',
        'tick-secret-value-the-third',
        'tick-secret-value-and-a-fourth',
      ]) {
        await api.patchSecret('TICK_SECRET', value, 'dev')
        const ticks = new RegExp(`tick ${value.length} 50\n`)
        await until(() => ticks.test(output), `ticks after the restart with ${value.length} characters`)
      }
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      child.kill('SIGKILL')
    }
    const lines = output.split('\n').slice(0, -1)
    const notes = lines.filter((text) => !/^tick \d+ \d+$/.test(text))
    expect(notes).toEqual(
      Array.from({ length: 3 }, () => [
        'TICK_SECRET changed: stopping the command to restart it',
        expect.stringMatching(/^restarting .* with the new values$/),
      ]).flat(),
    )
    expect(output).not.toContain('tick-secret-value')
  })
})
