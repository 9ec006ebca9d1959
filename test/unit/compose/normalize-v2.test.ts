/**
 * `vault render`'s default output is compose v2's normalised model. The cases are compose-go's own
 * tests written as data (test/fixtures/compose-v2, SOURCE names the upstream files): its Normalize
 * tests run through the whole loader, and its short volume syntax cases through `parseShortVolume`.
 * `--format source` keeps the loaded model as it was printed before.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { parseShortVolume } from '../../../src/compose/normalize-volumes.js'
import { renderStack } from '../../../src/compose/render.js'
import { writeStack } from '../../helpers/compose-stack.js'

const fixtures = fileURLToPath(new URL('../../fixtures/compose-v2/', import.meta.url))
const cases = readdirSync(fixtures).filter((name) => existsSync(join(fixtures, name, 'case.json')))

type Entries = Record<string, Record<string, unknown>>
interface Printed {
  name: string
  services: Entries & { app: Record<string, unknown> }
  secrets: Entries
  volumes: Entries
  networks?: Entries
  [key: string]: unknown
}

interface UpstreamCase {
  upstream: string
  env?: Record<string, string>
}

async function render(
  directory: string,
  environment: Record<string, string> = {},
  format?: 'json' | 'source',
) {
  const result = await renderStack({ mode: 'config', cwd: directory, environment, format })
  if (result.kind !== 'config') throw new Error('expected a config')
  return result.text
}

describe("compose-go's Normalize cases, through the whole loader", () => {
  it('has the upstream cases and names their source', () => {
    expect(cases.length).toBeGreaterThanOrEqual(7)
    expect(readFileSync(join(fixtures, 'SOURCE'), 'utf8')).toMatch(
      /^SOURCE: https:\/\/github\.com\/compose-spec\/compose-go\/blob\/[0-9a-f]{40}\/loader\/normalize_test\.go$/m,
    )
  })

  it.each(cases)('%s', async (name) => {
    const directory = join(fixtures, name)
    const fixture = JSON.parse(readFileSync(join(directory, 'case.json'), 'utf8')) as UpstreamCase
    const expected = parse(
      readFileSync(join(directory, 'expected.yaml'), 'utf8').replaceAll('<dir>', directory),
    )
    expect(parse(await render(directory, fixture.env))).toEqual(expected)
  })
})

describe("compose-go's short volume syntax cases (format/volume_test.go)", () => {
  const table = JSON.parse(readFileSync(join(fixtures, 'volume-specs.json'), 'utf8')) as {
    cases: { test: string; spec: string; expected: unknown }[]
  }
  it.each(table.cases.map((row) => [row.test, row.spec, row.expected]))('%s %j', (_, spec, expected) => {
    expect(parseShortVolume(spec as string) ?? null).toEqual(expected)
  })
})

describe('render formats', () => {
  const stack = (yaml: string, others: Record<string, string> = {}) =>
    writeStack({ 'compose.yaml': yaml, ...others })

  it('prints long volume, secret and port syntax with absolute paths, and keeps the short form behind --format source', async () => {
    const directory = stack(
      [
        'services:',
        '  app:',
        '    image: alpine',
        '    env_file: app.env',
        '    volumes: ["./data:/data:ro", "cache:/cache/"]',
        '    ports: ["8080:80"]',
        '    secrets: [token]',
        '    x-note: kept',
        'volumes: { cache: {} }',
        'secrets: { token: { file: ./token.txt } }',
        'x-shared: { a: 1 }',
      ].join('\n'),
      { 'app.env': 'FROM_FILE=1\n' },
    )
    const model = parse(await render(directory)) as Printed
    const app = model.services.app
    expect(app.volumes).toEqual([
      {
        type: 'bind',
        source: join(directory, 'data'),
        target: '/data',
        read_only: true,
        bind: { create_host_path: true },
      },
      { type: 'volume', source: 'cache', target: '/cache', volume: {} },
    ])
    expect(app.secrets).toEqual([{ source: 'token', target: '/run/secrets/token' }])
    expect(app.ports).toEqual([{ mode: 'ingress', target: 80, published: '8080', protocol: 'tcp' }])
    expect(app.environment).toEqual({ FROM_FILE: '1' })
    expect(app.env_file).toBeUndefined()
    expect(app['x-note']).toBe('kept')
    expect(model.secrets.token).toEqual({ name: `${model.name}_token`, file: join(directory, 'token.txt') })
    expect(model.volumes.cache).toEqual({ name: `${model.name}_cache` })
    expect(model['x-shared']).toEqual({ a: 1 })
    expect(model.include).toBeUndefined()
    expect(Object.keys(model)).toEqual(['name', 'services', 'networks', 'volumes', 'secrets', 'x-shared'])

    const json = JSON.parse(await render(directory, {}, 'json')) as Printed
    expect(json.services.app.volumes).toEqual(app.volumes)
    expect(json.services.app['x-note']).toBeUndefined()
    expect(json['x-shared']).toEqual({ a: 1 })

    const source = parse(await render(directory, {}, 'source')) as Printed
    expect(source.services.app.volumes).toEqual([`${join(directory, 'data')}:/data:ro`, 'cache:/cache/'])
    expect(source.services.app.networks).toBeUndefined()
    expect(source.networks).toBeUndefined()
  })

  it('keeps env_file in long form with --no-interpolate (compose does not read it then)', async () => {
    const directory = stack('services:\n  app:\n    image: alpine\n    env_file: app.env\n', {
      'app.env': 'FROM_FILE=1\n',
    })
    const result = await renderStack({ mode: 'config', cwd: directory, environment: {}, interpolate: false })
    if (result.kind !== 'config') throw new Error('expected a config')
    const app = (parse(result.text) as Printed).services.app
    expect(app.env_file).toEqual([{ path: join(directory, 'app.env'), required: true }])
    expect(app.environment).toEqual({})
  })

  it.each([
    ['-p', { projectName: 'Shop' }, 'invalid project name "Shop"'],
    [
      'COMPOSE_PROJECT_NAME',
      { environment: { COMPOSE_PROJECT_NAME: 'my.shop' } },
      'invalid project name "my.shop"',
    ],
  ])(
    'an explicit project name that is not normalised is refused (%s), as compose does',
    async (_, options, message) => {
      const directory = stack('services:\n  app:\n    image: alpine\n')
      await expect(
        renderStack({ mode: 'config', cwd: directory, environment: {}, ...options }),
      ).rejects.toThrow(message)
    },
  )

  it('normalises the top-level name and the directory name as compose does (lower case, no leading _ or -)', async () => {
    const named = stack('name: "__My.Shop-1"\nservices:\n  app:\n    image: alpine\n')
    expect(parse(await render(named)).name).toBe('myshop-1')
    expect(parse(await render(named)).networks.default.name).toBe('myshop-1_default')
  })
})
