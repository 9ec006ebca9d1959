/**
 * The child's masked stdout and stderr (src/masking/masked-stdio.ts), end to end in a separate Node
 * process (it copies to the process's own descriptors 1 and 2): a real `sh` child writes a canary
 * value to both streams, and what reaches the driver's stdout and stderr (pipes or one file, read by
 * the test) is checked against the text the child wrote with the value replaced. Every plumbing is
 * run: Unix sockets (default), FIFOs (VAULT_MASK_FIFO=1) and Node's pipes (no usable TMPDIR), masked
 * streams apart or shared (`2>&1`: order kept, a value split between the streams masked).
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const canary = 'CANARY-masked-stdio-8d1f'
const mask = '********'
const moduleUrl = new URL('../../../src/masking/masked-stdio.ts', import.meta.url).href
const work = mkdtempSync(join(tmpdir(), 'masked-stdio-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const driver = join(work, 'driver.mjs')
writeFileSync(
  driver,
  `import { spawn } from 'node:child_process'
import { prepareMaskedStdio } from ${JSON.stringify(moduleUrl)}
const config = JSON.parse(process.env.DRIVER_CONFIG)
// set here, not in the environment: tsx makes its cache directory in TMPDIR when it starts
if (config.tmpdir) process.env.TMPDIR = config.tmpdir
const warnings = []
const stdio = await prepareMaskedStdio({ ...config.masked, warn: (line) => warnings.push(line) })
const child = spawn('sh', ['-c', config.script], { stdio: ['ignore', stdio.stdout, stdio.stderr], env: { CANARY: config.value, PATH: process.env.PATH } })
const copies = stdio.start(child)
await new Promise((resolve) => child.on('close', resolve))
await copies.settle()
for (const line of warnings) process.stderr.write('WARNING ' + line + '\\n')
`,
)

interface Driven {
  stdout: string
  stderr: string
  code: number | null
}

/** Runs the driver; `sameOutput` gives it one file as stdout and stderr (`2>&1`), read back as `stdout`. */
async function drive(
  masked: { stdout: boolean; stderr: boolean; shared?: boolean },
  script: string,
  options: { env?: Record<string, string>; tmpdir?: string; sameOutput?: boolean } = {},
): Promise<Driven> {
  const env = {
    PATH: process.env.PATH!,
    TMPDIR: work,
    ...options.env,
    DRIVER_CONFIG: JSON.stringify({
      masked: { ...masked, values: [canary] },
      script,
      value: canary,
      tmpdir: options.tmpdir,
    }),
  }
  const args = ['--import', 'tsx', driver]
  if (options.sameOutput) {
    const file = join(work, `same-${Math.random().toString(36).slice(2)}`)
    const fd = openSync(file, 'w')
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', fd, fd] })
    closeSync(fd)
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    return { stdout: readFileSync(file, 'utf8'), stderr: '', code }
  }
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { stdout, stderr, code }
}

const both = 'printf "out $CANARY end\\n"; printf "err $CANARY end\\n" >&2'
const noDir = join(work, 'no-such-dir')
const plumbings: [string, { env?: Record<string, string>; tmpdir?: string }][] = [
  ['Unix sockets', {}],
  ['FIFOs', { env: { VAULT_MASK_FIFO: '1' } }],
  ['Node pipes (TMPDIR unusable)', { tmpdir: noDir }],
]

describe('prepareMaskedStdio', () => {
  it.each(plumbings)(
    'masks stdout and stderr apart through %s',
    async (_name, options) => {
      const run = await drive({ stdout: true, stderr: true }, both, options)
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(`out ${mask} end\n`)
      expect(run.stderr).toBe(`err ${mask} end\n`)
    },
    30_000,
  )

  it('leaves a stream that is not masked to the child (inherited as it is)', async () => {
    const run = await drive({ stdout: true, stderr: false }, both)
    expect(run.stdout).toBe(`out ${mask} end\n`)
    expect(run.stderr).toBe(`err ${canary} end\n`)
  }, 30_000)

  it.each(plumbings.slice(0, 2))(
    'keeps the order of one shared output and masks a value split between the streams (%s)',
    async (_name, options) => {
      const script =
        'for i in 1 2 3 4 5; do printf "o$i " ; printf "e$i " >&2; done; ' +
        'printf "${CANARY%%-8d1f}"; printf -- "-8d1f\\n" >&2'
      const run = await drive({ stdout: true, stderr: true, shared: true }, script, {
        ...options,
        sameOutput: true,
      })
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(`o1 e1 o2 e2 o3 e3 o4 e4 o5 e5 ${mask}\n`)
    },
    30_000,
  )

  it('falls back to two pipes for a shared output without a usable TMPDIR, masking each and saying why', async () => {
    const run = await drive({ stdout: true, stderr: true, shared: true }, both, { tmpdir: noDir })
    expect(run.stdout).toBe(`out ${mask} end\n`)
    expect(run.stderr).toContain(`err ${mask} end\n`)
    expect(run.stderr).toMatch(/WARNING stdout and stderr are one output, .*order .* is not kept/)
    expect(run.stderr).toContain(noDir)
    expect(run.stderr).not.toContain(canary)
  }, 30_000)
})
