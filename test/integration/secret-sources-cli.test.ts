/**
 * Issue 35 item 7 through the CLI's commands (in process) and a real vault server: a stack whose
 * compose secret takes its value from the environment (`secrets: { db_password: { environment:
 * DB_PASSWORD } }`), which `vault run` handles, passes `render --check` and doctor's compose checks, and
 * the services that mount it are its users in `render --who-uses` and in `secrets import --dry-run`'s
 * SERVICES column, as rotate recreates them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeCredentialsFile } from '../../src/client/credentials-file.js'
import { runCommandLine } from '../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'

const compose = [
  'services:',
  '  db:',
  '    image: postgres:16',
  '    environment:',
  '      POSTGRES_PASSWORD_FILE: /run/secrets/db_password',
  '    secrets: [db_password]',
  '  app:',
  '    image: app',
  '    secrets:',
  '      - source: db_password',
  '        target: database-password',
  '  worker:',
  '    image: worker',
  'secrets:',
  '  db_password:',
  '    environment: DB_PASSWORD',
].join('\n')

describe('compose secrets with an environment: source, through the CLI', () => {
  let server: TestVault
  let home: TempHome
  let stack: string
  const vault = (args: string[]) => runCommandLine(args, { env: home.env, cwd: stack })

  beforeAll(async () => {
    server = await startVaultServer({})
    home = createTempHome()
    stack = mkdtempSync('/tmp/vault-sources-')
    writeFileSync(join(stack, 'compose.yaml'), compose)
    writeFileSync(join(stack, '.env'), 'DB_PASSWORD=canary-sourced-pw-81\n')
    writeCredentialsFile(stack, {
      ...deploymentVariables(server),
    })
  })
  afterAll(async () => {
    await server?.stop()
    home?.cleanup()
    if (stack) rmSync(stack, { recursive: true, force: true })
  })

  it('secrets import --dry-run names the services that mount it', async () => {
    const dry = await vault(['secrets', 'import', '.env', '--env', 'dev', '--dry-run'])
    expect(dry.exitCode, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/^DB_PASSWORD +would be created +app,db *$/m)
    expect(dry.stdout + dry.stderr).not.toContain('canary')
  })

  it('render --who-uses lists them; render --check and doctor accept the stack once the value is in the vault', async () => {
    const before = await vault(['render', '--check', '--env', 'dev'])
    expect(before.exitCode).toBe(0)
    expect(before.stdout).toContain(
      "DB_PASSWORD looks like a secret but resolves to the project env file's value",
    )
    expect(before.stdout).not.toMatch(/v1|undefined secret|canary/)
    const imported = await vault(['secrets', 'import', '.env', '--env', 'dev', '--move'])
    expect(imported.exitCode, imported.stderr).toBe(0)
    const users = await vault(['render', '--who-uses', 'DB_PASSWORD', '--env', 'dev', '--json'])
    const services = JSON.parse(users.stdout).references.map((site: { service: string }) => site.service)
    // '' is the bare DB_PASSWORD line --move left in the project .env (no service)
    expect(services.filter(Boolean)).toEqual(['app', 'db'])
    const check = await vault(['render', '--check', '--env', 'dev'])
    expect(check.stdout).toBe('0 error(s), 0 warning(s), 0 info\n')
    expect(check.exitCode).toBe(0)
    const doctor = await vault(['doctor', '--env', 'dev', '--json'])
    const checks = JSON.parse(doctor.stdout).checks as { id: string; status: string; detail: string }[]
    const status = Object.fromEntries(checks.map((entry) => [entry.id, entry.status]))
    expect(status['required-variables']).toBe('pass')
    expect(status['compose-v1-keys']).not.toBe('fail')
  })
})
