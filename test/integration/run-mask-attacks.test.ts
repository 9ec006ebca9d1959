/**
 * Attacks on the Unix sockets of `vault run`'s masked output (src/masking/socket-output.ts): another user
 * probing the temporary directory for the socket the whole time masked runs start never connects,
 * a process of the CLI's own user that does connect first is closed and hears nothing (the run neither
 * hangs nor gives it the child's output), and no directory is left behind, even when the CLI is killed; a value straddling the 1 MB reads of
 * the fast copy is masked at every offset; a CLI stopped by a signal mid-stream shows no value.
 * The masking does not depend on the store, so these run on SQLite only.
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, runJs } from '../helpers/cli.js'
import { startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const canary = 'CANARY-mask-attack-9c4d21'
const isRoot = process.getuid?.() === 0

describe('vault run masked output under attack', () => {
  let vault: DeliveryVault
  /** A world-writable sticky TMPDIR like /tmp, for the CLI only: its vault-run-* entries are countable. */
  let tmp: string
  beforeAll(async () => {
    vault = await startDeliveryVault('sqlite', { MASK_CANARY: canary })
    tmp = mkdtempSync(join(tmpdir(), 'mask-attack-'))
    chmodSync(tmp, 0o1777)
  })
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true })
    await vault?.stop()
  })

  const leftovers = () => readdirSync(tmp).filter((name) => name.startsWith('vault-run-'))
  const cliEnv = () => ({ PATH: process.env.PATH, ...vault.env, TMPDIR: tmp })

  it.skipIf(!isRoot)('never lets another user connect to the socket, and leaves no directory', async () => {
    // as nobody: connect to every vault-run-*/output that appears, as fast as the loop goes
    const probe = `
      const net = require('net'), fs = require('fs'), dir = ${JSON.stringify(tmp)}
      let tries = 0, connected = 0; const end = Date.now() + 3000
      const tick = () => {
        if (Date.now() > end) return console.log(JSON.stringify({ tries, connected }))
        for (const name of fs.readdirSync(dir).filter((n) => n.startsWith('vault-run-'))) {
          tries++
          net.connect(dir + '/' + name + '/output').on('connect', () => connected++).on('error', () => {})
        }
        setImmediate(tick)
      }
      tick()`
    const prober = execa('runuser', ['-u', 'nobody', '--', process.execPath, '-e', probe], { reject: false })
    const script = 'echo "$MASK_CANARY"; echo "$MASK_CANARY" >&2'
    for (let i = 0; i < 5; i++) {
      const result = await runCli(['run', '--env', 'dev', '--mask', '--', 'sh', '-c', script], {
        env: cliEnv(),
      })
      expect(result.stdout).toBe('********\n')
      expect(result.stdout + result.stderr).not.toContain(canary)
    }
    const { stdout } = await prober
    const { tries, connected } = JSON.parse(stdout) as { tries: number; connected: number }
    expect(tries).toBeGreaterThan(0)
    expect(connected).toBe(0)
    expect(leftovers()).toEqual([])
  })

  it('gives a same-user process that connects to the socket first nothing, and neither hangs nor leaks', async () => {
    // as the CLI's own user (who may enter the mode-700 directory): connect to every vault-run-*/output
    // that appears and keep what arrives; the CLI's connections prove themselves with a token, others are closed
    const probe = `
      const net = require('net'), fs = require('fs'), dir = ${JSON.stringify(tmp)}
      let tries = 0, connected = 0, heard = ''; const end = Date.now() + 4000
      const tick = () => {
        if (Date.now() > end) return console.log(JSON.stringify({ tries, connected, heard }))
        for (const name of fs.readdirSync(dir).filter((n) => n.startsWith('vault-run-'))) {
          tries++
          const socket = net.connect(dir + '/' + name + '/output')
          socket.on('connect', () => connected++).on('error', () => {})
          socket.on('data', (chunk) => (heard += chunk))
        }
        setImmediate(tick)
      }
      tick()`
    const prober = execa(process.execPath, ['-e', probe], { reject: false })
    const script = 'echo "$MASK_CANARY"; echo "$MASK_CANARY" >&2'
    for (let i = 0; i < 6; i++) {
      const result = await runCli(['run', '--env', 'dev', '--mask', '--', 'sh', '-c', script], {
        env: cliEnv(),
        timeout: 20_000,
      })
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stdout).toBe('********\n')
      expect(result.stdout + result.stderr).not.toContain(canary)
    }
    const { stdout } = await prober
    const { tries, connected, heard } = JSON.parse(stdout) as {
      tries: number
      connected: number
      heard: string
    }
    expect(tries).toBeGreaterThan(0)
    // the probe did reach the socket (about 2,300 connections over the six runs here)
    expect(connected).toBeGreaterThan(0)
    expect(heard).toBe('')
    expect(leftovers()).toEqual([])
  })

  it('masks a value at every offset across the 1 MB reads of the copy, in one write of 25 MB', async () => {
    const writer =
      'const c = process.env.MASK_CANARY, parts = [];' +
      "for (let k = 1; k <= 25; k++) parts.push('x'.repeat((1 << 20) - k), c);" +
      "const s = parts.join(''); process.stdout.write(s); process.stderr.write(s)"
    const result = await execa(
      process.execPath,
      [runJs, 'run', '--env', 'dev', '--mask', '--', process.execPath, '-e', writer],
      { env: cliEnv(), extendEnv: false, reject: false, maxBuffer: 256 << 20, timeout: 60_000 },
    )
    expect(result.exitCode).toBe(0)
    for (const output of [result.stdout, result.stderr]) {
      expect(output).not.toContain(canary)
      expect(output.split('********')).toHaveLength(26)
    }
  })

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
    it(`shows no value when the CLI gets ${signal} mid-stream, and leaves no directory`, async () => {
      const writer = "setInterval(() => process.stdout.write('v=' + process.env.MASK_CANARY + '\\n'), 2)"
      const child = spawn(
        process.execPath,
        [runJs, 'run', '--env', 'dev', '--mask', '--', process.execPath, '-e', writer],
        { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
      await new Promise<void>((resolve) => {
        child.stdout.on('data', () => output.includes('v=********\n') && resolve())
      })
      child.kill(signal)
      // with SIGKILL the child's writes fail (EPIPE) and it ends: the pipes close when it does
      await new Promise((resolve) => child.on('close', resolve))
      expect(output).toContain('v=********')
      expect(output).not.toContain(canary)
      expect(leftovers()).toEqual([])
    })
  }
})
