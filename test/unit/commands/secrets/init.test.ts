/**
 * `vault secrets init` that does no harm (issue 35), in process against a real vault server over HTTP
 * (moved from the spawned test/integration/secrets-init-plan.test.ts): the plan of langfuse's published
 * docker-compose.yml (--dry-run writes nothing), the values it then stores (one MinIO password behind
 * the three object-store keys, DATABASE_URL a template of POSTGRES_PASSWORD, the shapes of the
 * published defaults), and immich's published DB_PASSWORD replaced after `secrets import --move`.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeCredentialsFile } from '../../../../src/client/credentials-file.js'
import { runCommandLine } from '../../../helpers/run-command-line.js'
import { createTempHome, type TempHome } from '../../../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../../../helpers/vault-server.js'

const fixtures = fileURLToPath(new URL('../../../fixtures/stacks/', import.meta.url))

type PlanEntry = { name: string; action: string; reason: string; template?: string }

describe('secrets init plans before it writes', () => {
  let server: TestVault
  let home: TempHome
  let work: string
  const stackDir = (name: string) => join(work, name)
  const vault = (name: string, args: string[]) => runCommandLine(args, { env: home.env, cwd: stackDir(name) })
  const exported = async (name: string, env: string) => {
    const result = await vault(name, ['export', '--env', env, '--format', 'json'])
    expect(result.exitCode, result.stderr).toBe(0)
    return JSON.parse(result.stdout) as Record<string, string>
  }

  beforeAll(async () => {
    server = await startVaultServer({})
    home = createTempHome()
    work = mkdtempSync('/tmp/vault-initplan-')
    for (const name of ['langfuse', 'immich']) {
      cpSync(join(fixtures, name), stackDir(name), { recursive: true })
      writeCredentialsFile(stackDir(name), {
        ...deploymentVariables(server),
      })
    }
  })

  afterAll(async () => {
    await server?.stop()
    home?.cleanup()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('langfuse: --dry-run prints the plan and writes nothing', async () => {
    const dry = await vault('langfuse', ['secrets', 'init', '--env', 'dev', '--dry-run', '--json'])
    expect(dry.exitCode, dry.stderr).toBe(0)
    const plan = JSON.parse(dry.stdout).plan as PlanEntry[]
    const byName = Object.fromEntries(plan.map((entry) => [entry.name, entry]))
    expect(byName.SALT).toMatchObject({ action: 'generate' })
    expect(byName.REDIS_AUTH).toMatchObject({ action: 'generate' })
    expect(byName.REDIS_TLS_KEY).toMatchObject({ action: 'skip', reason: 'a path' })
    expect(byName.LANGFUSE_INIT_PROJECT_SECRET_KEY).toMatchObject({ action: 'skip' })
    expect(byName.DATABASE_URL).toMatchObject({
      action: 'template',
      template: 'postgresql://postgres:${POSTGRES_PASSWORD}@postgres:5432/postgres',
    })
    const human = await vault('langfuse', ['secrets', 'init', '--env', 'dev', '--dry-run'])
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/^REDIS_TLS_KEY +skip +a path$/m)
    expect(human.stdout).toMatch(/^ENCRYPTION_KEY +generate +its default is a published placeholder$/m)
    expect(human.stderr).toMatch(/would generate: .*ENCRYPTION_KEY/)
    expect(human.stderr).toMatch(/skipped: .*REDIS_TLS_KEY/)
    expect(human.stderr).toContain('dry run, nothing written')
    const listed = await vault('langfuse', ['secrets', 'list', '--env', 'dev', '--json'])
    expect(JSON.parse(listed.stdout).secrets).toEqual([])
  })

  it('langfuse: stores one secret per published default, templates for what must match', async () => {
    const result = await vault('langfuse', ['secrets', 'init', '--env', 'dev', '--json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).created).toHaveLength(11)
    const values = await exported('langfuse', 'dev')
    expect(Object.keys(values)).not.toContain('REDIS_TLS_KEY')
    expect(Object.keys(values)).not.toContain('LANGFUSE_INIT_PROJECT_SECRET_KEY')
    expect(values.ENCRYPTION_KEY).toMatch(/^[0-9a-f]{64}$/)
    expect(values.ENCRYPTION_KEY).not.toBe('0'.repeat(64))
    expect(values.REDIS_AUTH).toMatch(/^[A-Za-z0-9]{32}$/)
    for (const key of ['EVENT_UPLOAD', 'MEDIA_UPLOAD', 'BATCH_EXPORT'])
      expect(values[`LANGFUSE_S3_${key}_SECRET_ACCESS_KEY`]).toBe(values.MINIO_ROOT_PASSWORD)
    expect(values.DATABASE_URL).toBe(
      `postgresql://postgres:${values.POSTGRES_PASSWORD}@postgres:5432/postgres`,
    )
    const again = await vault('langfuse', ['secrets', 'init', '--env', 'dev', '--json'])
    expect(JSON.parse(again.stdout).created).toEqual([])
    expect(await exported('langfuse', 'dev')).toEqual(values)
  })

  it('immich: the published DB_PASSWORD, once imported, is replaced; its user is kept', async () => {
    const imported = await vault('immich', ['secrets', 'import', '.env', '--env', 'dev', '--move'])
    expect(imported.exitCode, imported.stderr).toBe(0)
    expect((await exported('immich', 'dev')).DB_PASSWORD).toBe('postgres')
    const dry = await vault('immich', ['secrets', 'init', '--env', 'dev', '--dry-run', '--json'])
    expect(dry.exitCode, dry.stderr).toBe(0)
    const plan = Object.fromEntries(
      (JSON.parse(dry.stdout).plan as PlanEntry[]).map((entry) => [entry.name, entry]),
    )
    expect(plan.DB_PASSWORD).toMatchObject({ action: 'generate' })
    expect(plan.DB_PASSWORD!.reason).toMatch(/^the vault holds the published value/)
    expect(plan.DB_USERNAME).toMatchObject({ action: 'keep' })
    expect((await exported('immich', 'dev')).DB_PASSWORD).toBe('postgres')
    expect((await vault('immich', ['secrets', 'init', '--env', 'dev'])).exitCode).toBe(0)
    const after = await exported('immich', 'dev')
    expect(after.DB_PASSWORD).toMatch(/^[A-Za-z0-9]{32}$/)
    expect(after.DB_USERNAME).toBe('postgres')
  })

  it('import: warns of an unset $VAR before writing (dry run too), offers and stores a template', async () => {
    const dir = stackDir('immich')
    writeFileSync(
      join(dir, 'extra.env'),
      'APP_DB_PASSWORD=canary-app-7c1d\nAPP_URL=postgresql://app:${APP_DB_PASSWORD}@database/app\nLOG_URL=http://u:${UNSET_CANARY_VAR}@log\n',
    )
    const dry = await vault('immich', ['secrets', 'import', 'extra.env', '--env', 'staging', '--dry-run'])
    expect(dry.exitCode, dry.stderr).toBe(0)
    expect(dry.stderr).toMatch(/Warning: .*extra\.env:3: the "UNSET_CANARY_VAR" variable is not set/)
    expect(dry.stdout).toMatch(
      /^APP_URL +would be created +- +holds the value of APP_DB_PASSWORD: --templates/m,
    )
    const real = await vault('immich', [
      'secrets',
      'import',
      'extra.env',
      '--env',
      'staging',
      '--templates',
      '--only',
      'APP_DB_PASSWORD,APP_URL',
    ])
    expect(real.exitCode, real.stderr).toBe(0)
    expect(`${real.stdout}${real.stderr}`).not.toContain('canary-app')
    const listed = await vault('immich', ['secrets', 'list', '--env', 'staging'])
    expect(listed.stdout).toMatch(/^APP_URL +1 +\S+ +template$/m)
    expect((await exported('immich', 'staging')).APP_URL).toBe(
      'postgresql://app:canary-app-7c1d@database/app',
    )
  })
})
