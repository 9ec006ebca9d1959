import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { exitCodeForStatus } from '../../../src/process/child.js'

const driver = fileURLToPath(new URL('../../fixtures/process/run-child-driver.ts', import.meta.url))
const counter = fileURLToPath(new URL('../../fixtures/process/signal-counter.mjs', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'vault-child-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Driven {
  pid: number
  exit: Promise<number | null>
}

function drive(args: string[], env: Record<string, string> = {}): Driven {
  const child = spawn(process.execPath, ['--import', 'tsx', driver, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { pid: child.pid!, exit }
}

async function waitFor(path: string): Promise<void> {
  for (let i = 0; i < 200 && !existsSync(path); i++) await sleep(50)
  if (!existsSync(path)) throw new Error(`${path} never appeared`)
}

describe('runChild exit codes', () => {
  it.each([
    ['exit 0', 0],
    ['exit 7', 7],
    ['exit 255', 255],
    ['kill -TERM $$', 143],
    ['kill -KILL $$', 137],
  ])('sh -c %j ends the CLI with %i', async (script, expected) => {
    expect(await drive(['sh', '-c', script]).exit).toBe(expected)
  })

  it('ends with 127 when the command does not exist', async () => {
    expect(await drive(['vault-no-such-command-xyz']).exit).toBe(127)
  })
})

describe('runChild signal forwarding', () => {
  it.each([
    ['SIGTERM', {}, { SIGTERM: 1, SIGINT: 0, SIGHUP: 0 }],
    ['SIGHUP', {}, { SIGTERM: 0, SIGINT: 0, SIGHUP: 1 }],
    ['SIGINT', {}, { SIGTERM: 0, SIGINT: 1, SIGHUP: 0 }],
    ['SIGTERM', { RUN_INTERACTIVE: '1' }, { SIGTERM: 1, SIGINT: 0, SIGHUP: 0 }],
  ] as const)('a %s sent to the CLI %j reaches the child exactly once', async (signal, env, expected) => {
    const out = join(work, `${signal}-${Object.keys(env).length}.json`)
    const run = drive([process.execPath, counter, out], env)
    await waitFor(`${out}.ready`)
    process.kill(run.pid, signal)
    expect(await run.exit).toBe(3)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(expected)
  })

  it('does not forward SIGINT when interactive: the terminal already delivered it to the group', async () => {
    const out = join(work, 'interactive-int.json')
    const run = drive([process.execPath, counter, out], { RUN_INTERACTIVE: '1' })
    await waitFor(`${out}.ready`)
    process.kill(run.pid, 'SIGINT')
    await sleep(300)
    process.kill(run.pid, 'SIGTERM')
    expect(await run.exit).toBe(3)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ SIGTERM: 1, SIGINT: 0, SIGHUP: 0 })
  })
})

describe('exitCodeForStatus', () => {
  it.each([
    [0, undefined, 0],
    [9, undefined, 9],
    [undefined, 'SIGINT', 130],
    [undefined, 'SIGTERM', 143],
  ])('(%j, %j) -> %i', (code, signal, expected) => {
    expect(exitCodeForStatus(code, signal)).toBe(expected)
  })
})
