/**
 * `vault run` with stdout and stderr as one output (`2>&1` into a pipe or a file): the child gets one
 * masked channel for both (src/masking/same-output.ts), so its interleaved lines keep their order and a
 * canary written half to stdout and half to stderr is still masked. With stdout and stderr going to
 * different files, each file gets its own stream only. Run as a user would: `sh -c '... 2>&1'`.
 * The masking does not depend on the store, so these run on SQLite only.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runJs } from '../helpers/cli.js'
import { startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const canary = 'CANARY-mask-order-7e31a0'
const other = 'other-secret-4f9d2c'

/**
 * Interleaved lines on fd 1 and fd 2 (synchronous writes, so the order written is known), then the
 * canary split across the two streams, once with a pause between the halves (the idle release runs).
 */
const interleaved = `
const fs = require('fs'), c = process.env.MASK_CANARY
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
for (let i = 0; i < 40; i++) fs.writeSync(i % 2 ? 2 : 1, 'line ' + i + (i % 2 ? ' err' : ' out') + '\\n')
fs.writeSync(1, 'pw=' + c.slice(0, 9)); sleep(80); fs.writeSync(2, c.slice(9) + ' tail\\n')
fs.writeSync(2, 'key=' + c.slice(0, 4)); fs.writeSync(1, c.slice(4) + ' ' + process.env.MASK_OTHER + '\\n')
`
const expectedLines = [
  ...Array.from({ length: 40 }, (_, i) => `line ${i} ${i % 2 ? 'err' : 'out'}`),
  'pw=******** tail',
  'key=******** ********',
]

/** Each stream writes its own lines with the canary in each. */
const separate = `
const fs = require('fs'), c = process.env.MASK_CANARY
for (let i = 0; i < 10; i++) { fs.writeSync(1, 'out ' + i + ' ' + c + '\\n'); fs.writeSync(2, 'err ' + i + ' ' + c + '\\n') }
`

describe('vault run masked output when stdout and stderr are one output', () => {
  let vault: DeliveryVault
  let dir: string
  beforeAll(async () => {
    vault = await startDeliveryVault('sqlite', { MASK_CANARY: canary, MASK_OTHER: other })
    dir = mkdtempSync(join(tmpdir(), 'mask-shared-'))
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await vault?.stop()
  })

  const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`
  const vaultRun = `${quoted(process.execPath)} ${quoted(runJs)} run --env dev --`
  const shell = (line: string, extra: Record<string, string> = {}) =>
    execa('sh', ['-c', line], {
      env: { PATH: process.env.PATH, ...vault.env, ...extra },
      extendEnv: false,
      reject: false,
      timeout: 60_000,
      stripFinalNewline: false,
    })
  const node = quoted(process.execPath)

  for (const [path, extra] of [
    ['Unix socket (default)', {}],
    ['FIFO (VAULT_MASK_FIFO=1)', { VAULT_MASK_FIFO: '1' }],
  ] as const) {
    it(`2>&1 into one pipe: order kept, a value split between stdout and stderr masked (${path})`, async () => {
      const result = await shell(`${vaultRun} ${node} -e "$WRITER" 2>&1`, { ...extra, WRITER: interleaved })
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stderr).toBe('')
      for (const piece of [canary, canary.slice(0, 9), canary.slice(9), canary.slice(4), other]) {
        expect(result.stdout).not.toContain(piece)
      }
      expect(result.stdout.split('\n')).toEqual([...expectedLines, ''])
    })
  }

  it('>file 2>&1: the file has the lines in order and no part of the value', async () => {
    const file = join(dir, 'combined.log')
    const result = await shell(`${vaultRun} ${node} -e "$WRITER" > ${quoted(file)} 2>&1`, {
      WRITER: interleaved,
    })
    expect(result.exitCode).toBe(0)
    const written = readFileSync(file, 'utf8')
    expect(written).not.toContain(canary.slice(0, 9))
    expect(written).not.toContain(canary.slice(9))
    expect(written.split('\n')).toEqual([...expectedLines, ''])
  })

  it('gives the child one object as stdout and stderr under 2>&1, two otherwise', async () => {
    const probe = `${vaultRun} sh -c 'if [ /dev/stdout -ef /dev/stderr ]; then echo one; else echo two; fi'`
    const combined = await shell(`${probe} 2>&1`)
    expect(combined.stdout).toBe('one\n')
    const apart = await shell(`${probe} 2>/dev/null`)
    expect(apart.stdout).toBe('two\n')
  })

  /**
   * A TMPDIR that is a file, not a directory: no private socket (nor FIFO) can be made there, so the
   * masking falls back to Node's pipes. (A missing one would not do: Node's compile cache creates it.)
   */
  const noChannel = () => {
    const file = join(dir, 'not-a-dir-tmp')
    writeFileSync(file, '')
    return { TMPDIR: file }
  }
  const orderWarning =
    /^Warning: stdout and stderr are one output, but the masked channel they would share could not be made \(no private socket could be made in the temporary directory .*not-a-dir-tmp \(TMPDIR\)\); they are masked through two separate pipes, so the order of lines written to stdout and to stderr is not kept, and a value written partly to each is not masked$/m

  it('without a channel (no usable TMPDIR) under 2>&1: whole values still masked, and the lost order said once', async () => {
    const result = await shell(`${vaultRun} ${node} -e "$WRITER" 2>&1`, { ...noChannel(), WRITER: separate })
    expect(result.exitCode, result.stdout).toBe(0)
    expect(result.stdout).toMatch(orderWarning)
    expect(result.stdout.match(/Warning: /g)).toHaveLength(1)
    expect(result.stdout).not.toContain(canary)
    // every line arrives masked, but not interleaved as written (a line may even be cut by the other stream's)
    for (let i = 0; i < 10; i++) {
      expect(result.stdout).toContain(`out ${i} ********`)
      expect(result.stdout).toContain(`err ${i} ********`)
    }
    expect(result.stdout.match(/\*{8}/g)).toHaveLength(20)
  })

  it('without a channel, stdout and stderr apart: no warning (their order is not one order)', async () => {
    const out = join(dir, 'apart-out.log')
    const result = await shell(`${vaultRun} ${node} -e "$WRITER" > ${quoted(out)}`, {
      ...noChannel(),
      WRITER: separate,
    })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr).not.toMatch(/Warning/)
    expect(result.stderr).not.toContain(canary)
    expect(readFileSync(out, 'utf8')).not.toContain(canary)
  })

  it('stdout and stderr into different files: each gets only its own stream, masked', async () => {
    const out = join(dir, 'out.log')
    const err = join(dir, 'err.log')
    const result = await shell(`${vaultRun} ${node} -e "$WRITER" > ${quoted(out)} 2> ${quoted(err)}`, {
      WRITER: separate,
    })
    expect(result.exitCode).toBe(0)
    const lines = (prefix: string) =>
      Array.from({ length: 10 }, (_, i) => `${prefix} ${i} ********\n`).join('')
    expect(readFileSync(out, 'utf8')).toBe(lines('out'))
    expect(readFileSync(err, 'utf8')).toBe(lines('err'))
  })
})
