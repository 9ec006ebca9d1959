/**
 * `vault run` masks secret values in its child's output when that output is not a terminal (here a
 * pipe): canary values never reach the pipe, even written a few bytes at a time; --no-mask shows them;
 * values too short to mask are announced once.
 */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, runJs } from '../helpers/cli.js'
import { availableBackends, startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const canary = 'CANARY-mask-5b1f0e-value'
const secrets = { MASK_CANARY: canary, SHORT_ONE: 'ab', SHORT_TWO: 'xyz', OTHER: 'other-value-42' }
/** A child that writes the canary to stdout and stderr in pieces, with pauses between them. */
const splitWriter = `
const value = process.env.MASK_CANARY
const pieces = [value.slice(0, 5), value.slice(5, 11), value.slice(11)]
const write = (stream, i) => {
  if (i === pieces.length) { stream.write(' end\\n'); return }
  stream.write(pieces[i]); setTimeout(() => write(stream, i + 1), 30)
}
process.stdout.write('start '); write(process.stdout, 0)
process.stderr.write('err '); write(process.stderr, 0)
`

describe.each(availableBackends())('vault run output masking (%s)', (backend) => {
  let vault: DeliveryVault
  beforeAll(async () => {
    vault = await startDeliveryVault(backend, secrets)
  })
  afterAll(async () => vault?.stop())

  it('never shows a value the child prints to a pipe, on stdout or stderr', async () => {
    const result = await runCli(
      [
        'run',
        '--env',
        'dev',
        '--',
        'sh',
        '-c',
        'echo "pw=$MASK_CANARY other=$OTHER"; echo "$MASK_CANARY" >&2',
      ],
      { env: vault.env },
    )
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe('pw=******** other=********\n')
    expect(result.stdout + result.stderr).not.toContain(canary)
    expect(result.stderr).toContain('********')
  })

  it('masks a value the child writes in pieces across chunks', async () => {
    const result = await runCli(['run', '--env', 'dev', '--', process.execPath, '-e', splitWriter], {
      env: vault.env,
    })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe('start ******** end\n')
    expect(result.stderr).toContain('err ******** end\n')
    expect(result.stdout + result.stderr).not.toContain(canary)
  })

  it('says once that values shorter than 4 characters are not masked', async () => {
    const result = await runCli(['run', '--env', 'dev', '--', 'sh', '-c', 'echo "$SHORT_ONE"'], {
      env: vault.env,
    })
    expect(result.stdout).toBe('ab\n')
    const notes = result.stderr.split('\n').filter((line) => line.includes('shorter than 4 characters'))
    expect(notes).toHaveLength(1)
    expect(notes[0]).toContain('2 secret values are')
    expect(notes[0]).not.toContain('xyz')
  })

  it('--no-mask passes the output through unchanged', async () => {
    const result = await runCli(
      ['run', '--env', 'dev', '--no-mask', '--', 'sh', '-c', 'echo "$MASK_CANARY"'],
      {
        env: vault.env,
      },
    )
    expect(result.stdout).toBe(`${canary}\n`)
    expect(result.stderr).not.toContain('shorter than')
  })

  it("passes the child's exit code through when output is masked", async () => {
    const result = await runCli(
      ['run', '--env', 'dev', '--mask', '--', 'sh', '-c', 'echo "$OTHER"; exit 5'],
      {
        env: vault.env,
      },
    )
    expect(result.exitCode).toBe(5)
    expect(result.stdout).toBe('********\n')
  })

  it('does not wait for a background process that keeps the pipe open', async () => {
    const result = await runCli(
      ['run', '--env', 'dev', '--', 'sh', '-c', 'echo "$OTHER"; sleep 30 & exit 0'],
      { env: vault.env, timeout: 15_000 },
    )
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe('********\n')
  })

  it('stops the child when the reader goes away (yes | head), as a direct pipe would', async () => {
    const command = `'${process.execPath}' '${runJs}' run --env dev -- sh -c 'yes "$OTHER"' | head -n 2`
    const result = await execa('sh', ['-c', command], {
      env: { PATH: process.env.PATH, ...vault.env },
      extendEnv: false,
      reject: false,
      timeout: 20_000,
    })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe('********\n********')
  })

  for (const [path, extra] of [
    ['Unix socket (default)', {}],
    ['FIFO (VAULT_MASK_FIFO=1)', { VAULT_MASK_FIFO: '1' }],
  ] as const) {
    it(`loses and reorders nothing when its own output pipe is full (a reader that stalls): ${path}`, async () => {
      // 4 MB through the child's socket or FIFO into a pipe nobody reads for a while: the direct writes hit EAGAIN
      // (Node's stdout is a non-blocking pipe) and the rest goes through the stream while reading pauses
      const writer =
        "const line = 'x'.repeat(200) + ' ' + process.env.MASK_CANARY + ' ' + process.env.OTHER + '\\n';" +
        'for (let i = 0; i < 16000; i++) process.stdout.write(String(i).padStart(6) + line)'
      const command =
        `'${process.execPath}' '${runJs}' run --env dev --mask -- '${process.execPath}' -e "${writer}"` +
        ` | (sleep 1; cat)`
      const result = await execa('sh', ['-c', command], {
        env: { PATH: process.env.PATH, ...vault.env, ...extra },
        extendEnv: false,
        reject: false,
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      })
      expect(result.exitCode, result.stderr).toBe(0)
      const lines = result.stdout.split('\n')
      expect(lines).toHaveLength(16000)
      lines.forEach((line, i) =>
        expect(line).toBe(`${String(i).padStart(6)}${'x'.repeat(200)} ******** ********`),
      )
      expect(result.stdout).not.toContain(canary)
    })
  }

  for (const [title, extra, test, word] of [
    [
      "with VAULT_MASK_FIFO=1 gives the child a pipe (FIFO) for each masked stream, not Node's socketpair",
      { VAULT_MASK_FIFO: '1' },
      '-p',
      'fifo',
    ],
    [
      'by default makes no FIFO (no mkfifo on the start-up path): the masked streams are sockets',
      {},
      '-S',
      'socket',
    ],
  ] as const) {
    it(title, async () => {
      const script = `test ${test} /dev/stdout && test ${test} /dev/stderr && echo ${word}`
      const result = await runCli(['run', '--env', 'dev', '--mask', '--', 'sh', '-c', script], {
        env: { ...vault.env, ...extra },
      })
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stdout).toBe(`${word}\n`)
    })
  }

  it('exits 127 for a command that does not exist, output masked or not', async () => {
    for (const flag of ['--mask', '--no-mask']) {
      const result = await runCli(['run', '--env', 'dev', flag, '--', 'no-such-command-9f2e'], {
        env: vault.env,
      })
      expect(result.exitCode).toBe(127)
    }
  })

  it('shows a line the child wrote before it pauses, without waiting for more output', async () => {
    const marker = join(vault.home.dir, `go-on-${Date.now()}`)
    const script = `echo "ready $OTHER"; while [ ! -e '${marker}' ]; do sleep 0.05; done; echo done`
    const child = spawn(process.execPath, [runJs, 'run', '--env', 'dev', '--', 'sh', '-c', script], {
      env: { PATH: process.env.PATH, ...vault.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise((resolve) => child.on('exit', resolve))
    let stdout = ''
    try {
      await new Promise<void>((resolve, reject) => {
        setTimeout(
          () => reject(new Error(`the line was held back: ${JSON.stringify(stdout)}`)),
          30_000,
        ).unref()
        child.stdout!.on('data', (chunk: Buffer) => {
          stdout += chunk.toString()
          if (stdout.includes('\n')) resolve()
        })
      })
      expect(stdout).toBe('ready ********\n')
    } finally {
      writeFileSync(marker, '')
    }
    await exited
    expect(stdout).toBe('ready ********\ndone\n')
  })
})
