/**
 * A rotator run inside a compose service whose container has no database client says so (exit 3,
 * ERR_ROTATOR_NO_CLIENT) instead of reporting a login failure. The rotators' own shell prologue runs in
 * a real `sh` whose PATH holds only the clients a test puts there (a stand-in for `compose exec -T`).
 */
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mysqlRotator } from '../../../../src/rotate/rotators/mysql.js'
import { postgresRotator } from '../../../../src/rotate/rotators/postgres.js'
import type { ServiceExec } from '../../../../src/rotate/rotators/rotator.js'
import { reportError } from '../../../../src/text/error-report.js'

const canary = 'CANARY-client-missing-51c2'
const shell = ['/bin/sh', '/usr/bin/sh'].find((path) => existsSync(path))!

/** A container whose PATH holds `sh` and the given client scripts, nothing else. */
function container(clients: Record<string, string>): ServiceExec {
  const bin = mkdtempSync(join(tmpdir(), 'vault-no-client-'))
  symlinkSync(shell, join(bin, 'sh'))
  for (const [name, script] of Object.entries(clients)) {
    writeFileSync(join(bin, name), `#!${shell}\n${script}\n`)
    chmodSync(join(bin, name), 0o755)
  }
  return (_service, argv, { input }) =>
    new Promise((resolve) => {
      const child = execFile(argv[0]!, argv.slice(1), { env: { PATH: bin } }, (error, stdout, stderr) =>
        resolve({ exitCode: typeof error?.code === 'number' ? error.code : error ? 1 : 0, stdout, stderr }),
      )
      child.stdin!.end(input)
    })
}

describe('a service without a database client', () => {
  it.each([
    ['mysql', mysqlRotator, /mariadb and mysql not found/],
    ['postgres', postgresRotator, /psql not found/],
  ] as const)('the %s rotator exits 3 and names the missing client', async (_name, rotator, words) => {
    const exec = container({})
    const error = await rotator({ kind: 'service', service: 'db', exec })
      .apply(canary, `${canary}-next`)
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({
      name: 'RotatorClientMissingError',
      code: 'ERR_ROTATOR_NO_CLIENT',
      exitCode: 3,
    })
    expect((error as Error).message).toMatch(words)
    expect((error as Error).message).toMatch(/service db/)
    expect(JSON.stringify(reportError(error))).not.toContain(canary)
  })

  it.each([['mysql'], ['mariadb']])('with only %s present, the mysql rotator runs it', async (client) => {
    const exec = container({
      [client]: `cat >/dev/null; echo "ERROR 1045 (28000): Access denied" >&2; exit 1`,
    })
    const error = await mysqlRotator({ kind: 'service', service: 'db', exec })
      .apply(canary, `${canary}-next`)
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'ERR_ROTATOR_LOGIN', exitCode: 7 })
    expect((error as Error).message).toContain('Access denied')
  })
})
