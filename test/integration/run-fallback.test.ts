/**
 * `--fallback` against a real vault server (SQLite and PostgreSQL): a fetch writes the encrypted
 * offline copy (mode 600, key apart and mode 600, no value in clear); with the server stopped, `run`,
 * `export` and `render` use it with a warning giving its age; a copy that is too old is refused
 * (exit 7), a tampered one too (exit 8); `vault logout --delete-fallback` deletes it.
 */
import { readdirSync, readFileSync, statSync, writeFileSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fallbackKeyFilePath } from '../../src/delivery/fallback-key.js'
import { fallbackDirectory } from '../../src/delivery/fallback-store.js'
import { runVault } from '../helpers/run-vault.js'
import { availableBackends, startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const canary = 'CANARY-fallback-3e8d71'
const secrets = { FB_CANARY: canary, FB_OTHER: 'fallback-other-value' }
const printCanary = ['--', 'sh', '-c', 'printf %s "$FB_CANARY"']

describe.each(availableBackends())('--fallback with the vault stopped (%s)', (backend) => {
  let vault: DeliveryVault
  let stack: string
  /** `vault run` spawned (its child prints the value); export, render and logout in this process. */
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runVault(args, { env: { ...vault.env, ...env }, cwd: stack, timeout: 60_000 })
  const copyFiles = () =>
    readdirSync(fallbackDirectory(vault.env)).map((name) => join(fallbackDirectory(vault.env), name))

  beforeAll(async () => {
    vault = await startDeliveryVault(backend, secrets)
    stack = mkdtempSync(join(vault.home.dir, 'stack-'))
    writeFileSync(
      join(stack, 'compose.yaml'),
      'services:\n  app:\n    image: x\n    environment:\n      P: ${FB_OTHER}\n',
    )
    const fetched = await cli(['run', '--env', 'dev', '--fallback', '--no-mask', ...printCanary])
    expect(fetched.exitCode, fetched.stderr).toBe(0)
    expect(fetched.stdout).toBe(canary)
    await vault.server.stop()
  })
  afterAll(() => vault?.home.cleanup())

  it('kept one copy (mode 600) and a key apart from it (mode 600), neither holding a value in clear', () => {
    const files = [...copyFiles(), fallbackKeyFilePath(vault.env)]
    expect(files).toHaveLength(2)
    expect(join(files[0]!, '..')).not.toBe(join(files[1]!, '..'))
    for (const file of files) {
      expect(statSync(file).mode & 0o777).toBe(0o600)
      const text = readFileSync(file, 'utf8')
      for (const value of Object.values(secrets)) expect(text).not.toContain(value)
    }
  })

  it('vault run --fallback starts the child from the copy and warns with its age', async () => {
    const result = await cli(['run', '--env', 'dev', '--fallback', '--no-mask', ...printCanary])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe(canary)
    expect(result.stderr).toMatch(
      /Warning: the vault is unreachable .*using the offline copy of environment 'dev' saved \d+ s ago/,
    )
    expect(result.stderr).not.toContain(canary)
  })

  it('vault export --fallback and vault render --fallback read the copy', async () => {
    const exported = await cli(['export', '--env', 'dev', '--fallback'])
    expect(exported.exitCode, exported.stderr).toBe(0)
    expect(exported.stdout).toContain(`FB_CANARY='${canary}'`)
    const rendered = await cli(['render', '--env', 'dev', '--fallback'])
    expect(rendered.exitCode, rendered.stderr).toBe(0)
    expect(rendered.stdout).toContain('P: fallback-other-value')
    expect(rendered.stderr).toMatch(/offline copy/)
  })

  it('without --fallback the run fails as before (exit 7)', async () => {
    const result = await cli(['run', '--env', 'dev', ...printCanary])
    expect(result.exitCode).toBe(7)
  })

  it('refuses a copy older than --fallback-max-age (exit 7, child not started)', async () => {
    const result = await cli([
      'run',
      '--env',
      'dev',
      '--fallback',
      '--fallback-max-age',
      '0s',
      ...printCanary,
    ])
    expect(result.exitCode).toBe(7)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/older than --fallback-max-age/)
  })

  it('--fallback-only uses the copy without trying the vault', async () => {
    const result = await cli(['export', '--env', 'dev', '--fallback-only', '--format', 'json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ FB_CANARY: canary })
    expect(result.stderr).not.toMatch(/unreachable/)
  })

  it('falls back promptly: one refused attempt, not the retries (about 3 s) a run without --fallback waits', async () => {
    const timed = async (args: string[]) => {
      const started = performance.now()
      // the vault:http lines: DEBUG is read when the command builds its HTTP client (src/client/http.ts)
      const result = await cli(args, { DEBUG: 'vault' })
      const attempts = result.stderr.match(/^vault:http [A-Z]+ \S+ -> ECONNREFUSED/gm) ?? []
      return { result, attempts: attempts.length, ms: performance.now() - started }
    }
    const fallback = await timed(['export', '--env', 'dev', '--fallback', '--format', 'json'])
    const plain = await timed(['export', '--env', 'dev', '--format', 'json'])
    expect(fallback.result.exitCode, fallback.result.stderr).toBe(0)
    expect(JSON.parse(fallback.result.stdout)).toMatchObject({ FB_CANARY: canary })
    expect(plain.result.exitCode).toBe(7)
    expect([fallback.attempts, plain.attempts]).toEqual([1, 3])
    // the retries' backoff (1 s + 2 s) is what --fallback no longer waits for
    expect(plain.ms - fallback.ms).toBeGreaterThan(1500)
    console.info(
      `time to fallback (${backend}): --fallback ${fallback.ms.toFixed(0)} ms, without ${plain.ms.toFixed(0)} ms`,
    )
  })

  it('refuses a tampered copy with exit 8 and shows no value', async () => {
    const [path] = copyFiles()
    const original = readFileSync(path!, 'utf8')
    const file = JSON.parse(original) as { ciphertext: string }
    const bytes = Buffer.from(file.ciphertext, 'base64')
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x20
    writeFileSync(path!, JSON.stringify({ ...file, ciphertext: bytes.toString('base64') }))
    try {
      const result = await cli(['run', '--env', 'dev', '--fallback', ...printCanary])
      expect(result.exitCode).toBe(8)
      expect(result.stderr).toMatch(/integrity check/)
      expect(result.stdout + result.stderr).not.toContain(canary)
    } finally {
      writeFileSync(path!, original)
    }
  })

  it('vault logout keeps the copy unless told, then --delete-fallback deletes copy and key', async () => {
    const kept = await cli(['logout'])
    expect(kept.stderr).toMatch(/kept 1 offline copy; vault logout --delete-fallback deletes them/)
    expect(copyFiles()).toHaveLength(1)
    const deleted = await cli(['logout', '--delete-fallback', '--json'])
    expect(JSON.parse(deleted.stdout)).toMatchObject({
      offlineCopies: { environments: ['dev'], deleted: true },
    })
    expect(copyFiles()).toHaveLength(0)
    expect(() => statSync(fallbackKeyFilePath(vault.env))).toThrow()
  })
})
