import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { renderStack, type RenderedConfig, type CheckedStack } from '../../../src/compose/render.js'
import { formatRenderReport } from '../../../src/compose/report.js'
import { staticSecretLayer, type SecretLayer } from '../../../src/compose/secret-layer.js'
import { writeStack } from '../../helpers/compose-stack.js'

const compose = [
  'services:',
  '  db:',
  '    image: postgres:16',
  '    environment:',
  '      POSTGRES_PASSWORD: ${DATABASE_PASSWORD:?set it in the vault}',
  '      TZ: ${TZ:-UTC}',
].join('\n')

const layer = staticSecretLayer({
  dev: { DATABASE_PASSWORD: 'canary-dev-password', TZ: 'Europe/Paris', UNUSED: 'canary-unused' },
})

describe('renderStack with a secret layer', () => {
  it('uses the layer of the requested environment as the top layer', async () => {
    const cwd = writeStack({ 'compose.yaml': compose, '.env': 'TZ=Asia/Tokyo\n' })
    const result = (await renderStack(
      { mode: 'config', cwd, environment: { TZ: 'America/Lima' }, vaultEnvironment: 'dev' },
      layer,
    )) as RenderedConfig
    expect(parse(result.text).services.db.environment).toEqual({
      POSTGRES_PASSWORD: 'canary-dev-password',
      TZ: 'Europe/Paris',
    })
  })

  it('lets the host environment win with preferHostEnv', async () => {
    const cwd = writeStack({ 'compose.yaml': compose })
    const result = (await renderStack(
      {
        mode: 'config',
        cwd,
        environment: { TZ: 'America/Lima' },
        vaultEnvironment: 'dev',
        preferHostEnv: true,
      },
      layer,
    )) as RenderedConfig
    expect(parse(result.text).services.db.environment.TZ).toBe('America/Lima')
  })

  it('masks the vault values with mask', async () => {
    const cwd = writeStack({ 'compose.yaml': compose })
    const result = (await renderStack(
      { mode: 'config', cwd, environment: {}, vaultEnvironment: 'dev', mask: true, format: 'json' },
      layer,
    )) as RenderedConfig
    expect(JSON.parse(result.text).services.db.environment).toEqual({
      POSTGRES_PASSWORD: '********',
      TZ: '********',
    })
    expect(result.text).not.toContain('canary')
  })

  it('asks the layer only for the requested environment', async () => {
    const asked: string[] = []
    const recording: SecretLayer = {
      async load(environment) {
        asked.push(environment)
        return { DATABASE_PASSWORD: 'x' }
      },
    }
    const cwd = writeStack({ 'compose.yaml': compose })
    await renderStack({ mode: 'config', cwd, environment: {}, vaultEnvironment: 'prod' }, recording)
    expect(asked).toEqual(['prod'])
  })

  it('reports unused vault secrets in the check table, without values', async () => {
    const cwd = writeStack({ 'compose.yaml': compose })
    const result = (await renderStack(
      { mode: 'check', cwd, environment: {}, vaultEnvironment: 'dev' },
      layer,
    )) as CheckedStack
    expect(result.ok).toBe(true)
    const text = formatRenderReport(result, cwd)
    expect(text).toMatch(/^info\s+UNUSED\s+-\s+-\s+vault secret UNUSED is not referenced/m)
    expect(text).not.toContain('canary')
  })
})
