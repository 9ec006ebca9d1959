/**
 * Restore memory on genuine archives (issue 14: no archive may push restore or `--verify` above 150 MB
 * RSS). A genuine archive just under the 64 MiB inflate cap (15,000 versions, 145,000 audit events) is
 * restored with the built CLI into SQLite and PostgreSQL and checked with `--verify`; each process's
 * peak resident memory (VmHWM) must stay under 110 MB, a margin under the limit, and within 40 MB of
 * the same command on a small archive: memory must not grow with the archive.
 */
import { createReadStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createGunzip } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unavailableReason } from '../../../helpers/components.js'
import { buildGenuineArchive, type GenuineArchive } from './genuine-archive.js'
import { runMeasured, type MeasuredRun } from '../../../helpers/measured-cli.js'
import { engines } from './victim.js'

const work = mkdtempSync(join(tmpdir(), 'vault-cap-memory-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const mebibyte = 1024 * 1024
/** The limit is 150 MB; restore keeps a margin under it. */
const peakLimit = 110 * mebibyte
/** How much more a restore at the cap may take than one of a small archive. */
const growthLimit = 40 * mebibyte

let small: GenuineArchive
let atCap: GenuineArchive

async function inflatedBytes(path: string): Promise<number> {
  let total = 0
  for await (const chunk of createReadStream(path).pipe(createGunzip()) as AsyncIterable<Buffer>) {
    total += chunk.length
  }
  return total
}

function expectFlat(label: string, smallRun: MeasuredRun, capRun: MeasuredRun): void {
  const figures = `${label}: small archive ${(smallRun.peak / mebibyte).toFixed(0)} MiB, at the cap ${(capRun.peak / mebibyte).toFixed(0)} MiB`
  console.info(figures)
  expect(smallRun.exitCode, smallRun.stderr).toBe(0)
  expect(capRun.exitCode, capRun.stderr).toBe(0)
  expect(smallRun.peak, figures).toBeGreaterThan(0)
  expect(capRun.peak, figures).toBeLessThan(peakLimit)
  expect(capRun.peak - smallRun.peak, figures).toBeLessThan(growthLimit)
}

beforeAll(async () => {
  small = await buildGenuineArchive({ directory: work, name: 'small', versions: 300, events: 1000 })
  atCap = await buildGenuineArchive({ directory: work, name: 'cap', versions: 15_000, events: 130_000 })
  // Just under the cap: a restore of it inflates nearly all that --max-inflated-mib allows.
  expect(await inflatedBytes(atCap.path)).toBeGreaterThan(56 * mebibyte)
}, 180_000)

describe('peak memory of restore on a genuine archive at the inflate cap', () => {
  it('restore --verify stays flat and under 110 MB', { timeout: 300_000 }, async () => {
    const verifySmall = await runMeasured(['restore', '--verify', small.path], {
      ENCRYPTION_KEY: small.keyHex,
    })
    const verifyCap = await runMeasured(['restore', '--verify', atCap.path], { ENCRYPTION_KEY: atCap.keyHex })
    expect(verifyCap.stderr).not.toMatch(/Error/)
    expectFlat('verify', verifySmall, verifyCap)
  })

  for (const engine of engines) {
    it.skipIf(!engine.available)(
      `restore into ${engine.name} stays flat and under 110 MB (postgres: ${unavailableReason('postgres')})`,
      async () => {
        const restore = async (archive: GenuineArchive) =>
          runMeasured(['restore', archive.path], {
            DB_URL: await engine.newDatabase(work),
            ENCRYPTION_KEY: archive.keyHex,
          })
        expectFlat(`restore into ${engine.name}`, await restore(small), await restore(atCap))
      },
      // a restore at the cap takes about 40 s alone on PostgreSQL, longer on a loaded machine
      300_000,
    )
  }
})
