/**
 * The systemd units of examples/systemd/, checked by the real `systemd-analyze verify` (with their
 * `/usr/local/bin/vault` pointed at this checkout's bin/run.js, which verify requires to exist and be
 * executable): the server's keys arrive through LoadCredential as the `_FILE` settings it reads, never
 * in the unit; the server is hardened; the stack units bring a stack up with `vault run` at boot and
 * follow it with `vault run --watch`.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { serverSettings } from '../../src/server/settings.js'

const unitsDir = resolve(import.meta.dirname, '../../examples/systemd')
const runJs = resolve(import.meta.dirname, '../../bin/run.js')

function analyzeUnavailable(): string | undefined {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' })
    return undefined
  } catch (error) {
    return `systemd-analyze cannot run (${(error as Error).message.split('\n')[0]}); install the systemd package`
  }
}

const reason = analyzeUnavailable()
if (reason && process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1')
  throw new Error(`VAULT_TEST_REQUIRE_COMPONENTS=1 and systemd-analyze is unavailable: ${reason}`)

/** The units copied into a fresh directory, `vault` pointed at bin/run.js, with `edit` applied. */
function unitCopies(edit: (name: string, text: string) => string = (_name, text) => text): string {
  const dir = mkdtempSync(join(tmpdir(), 'vault-units-'))
  for (const name of readdirSync(unitsDir))
    writeFileSync(
      join(dir, name),
      edit(name, readFileSync(join(unitsDir, name), 'utf8').replaceAll('/usr/local/bin/vault', runJs)),
    )
  return dir
}

function verify(dir: string, units: string[]) {
  const result = spawnSync('systemd-analyze', ['verify', ...units.map((unit) => join(dir, unit))], {
    cwd: dir,
    encoding: 'utf8',
  })
  return { status: result.status, stderr: result.stderr, stdout: result.stdout }
}

/** The `Key=value` lines of a unit (comments left out). */
function directives(name: string): string[] {
  return readFileSync(join(unitsDir, name), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Za-z]+=/.test(line))
}

const instances = ['vault.service', 'vault-stack@media.service', 'vault-watch@media.service']

describe.skipIf(reason !== undefined)(`examples/systemd (${reason ?? 'systemd-analyze available'})`, () => {
  it('has exactly the three units', () => {
    expect(readdirSync(unitsDir).sort()).toEqual([
      'vault-stack@.service',
      'vault-watch@.service',
      'vault.service',
    ])
  })

  it('systemd-analyze verify accepts every unit without a warning', () => {
    const result = verify(unitCopies(), instances)
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
  })

  it('the check can fail: a misspelt directive and a missing binary are reported', () => {
    const typo = verify(
      unitCopies((name, text) =>
        name === 'vault.service' ? text.replace('ProtectSystem=', 'ProtectSystm=') : text,
      ),
      ['vault.service'],
    )
    expect(typo.stderr).toMatch(/Unknown key 'ProtectSystm'/)
    const missing = verify(
      unitCopies((name, text) => text.replaceAll(runJs, '/nonexistent/vault')),
      ['vault-stack@media.service'],
    )
    expect(missing.status).not.toBe(0)
    expect(missing.stderr).toMatch(/not executable/)
  })

  it("the server's keys come through LoadCredential as the _FILE settings it reads, never inline", () => {
    const lines = directives('vault.service')
    const fileSettings = new Set(
      serverSettings.filter((setting) => setting.fromFile).map((setting) => `${setting.env}_FILE`),
    )
    const credentials = lines
      .filter((line) => line.startsWith('LoadCredential='))
      .map((line) => line.split(/[=:]/)[1])
    expect(credentials).toEqual(['encryption-key', 'jwt-secret'])
    for (const credential of credentials) {
      const variable = lines.find((line) => line.endsWith(`=%d/${credential}`))
      expect(variable, credential).toBeDefined()
      expect(fileSettings).toContain(/^Environment=(\w+)=/.exec(variable!)![1])
    }
    expect(lines.join('\n')).not.toMatch(/[0-9a-f]{32}/i)
    expect(lines.join('\n')).not.toMatch(/^Environment=(VAULT_)?(ENCRYPTION_KEY|JWT_SECRET)=/m)
  })

  it('the server is hardened', () => {
    const lines = directives('vault.service')
    for (const setting of [
      'DynamicUser=yes',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'PrivateDevices=yes',
      'CapabilityBoundingSet=',
      'RestrictNamespaces=yes',
      'SystemCallFilter=@system-service',
      'UMask=0077',
      'StateDirectoryMode=0700',
    ])
      expect(lines).toContain(setting)
    expect(lines).toContain('Environment=VAULT_HOST=127.0.0.1')
  })

  it('vault-stack@ brings the stack in /srv/stacks/%i up at boot through vault run; vault-watch@ follows it', () => {
    const stack = directives('vault-stack@.service')
    expect(stack).toContain('WorkingDirectory=/srv/stacks/%i')
    expect(stack).toContain('ExecStart=/usr/local/bin/vault run -- docker compose up -d --remove-orphans')
    expect(stack).toContain('Type=oneshot')
    expect(stack).toContain('WantedBy=multi-user.target')
    expect(stack.find((line) => line.startsWith('After='))).toMatch(/docker\.service.*vault\.service/)
    const watch = directives('vault-watch@.service')
    expect(watch).toContain('WorkingDirectory=/srv/stacks/%i')
    expect(watch.find((line) => line.startsWith('ExecStart='))).toMatch(
      /^ExecStart=\/usr\/local\/bin\/vault run --watch -- /,
    )
    expect(watch).toContain('Restart=on-failure')
    expect(watch.find((line) => line.startsWith('After='))).toContain('vault-stack@%i.service')
  })
})
