/**
 * Names that mean something to a JavaScript object (`__proto__`, `constructor`, `toString`,
 * `hasOwnProperty`) are ordinary names in a compose file: as services, networks, volumes,
 * environment and label keys they are kept with their values, never set a prototype, and an
 * `extends` target of that name must really be defined.
 *
 * The reference is docker-compose v1 (`/usr/bin/docker-compose -f compose.yaml config`), run by hand
 * on `stack` below. It printed (abridged to the entries checked here):
 *
 *   networks: {__proto__: {}, constructor: {}, hasOwnProperty: {}}
 *   services:
 *     __proto__:
 *       environment: {__proto__: p, constructor: c, hasOwnProperty: h, toString: t}
 *       image: alpine
 *       labels: {__proto__: lp, constructor: lc}
 *       networks: {__proto__: null, constructor: null, hasOwnProperty: null}
 *       volumes: ['__proto__:/a:rw', 'toString:/b:rw']
 *     constructor:
 *       environment: {__proto__: p, toString: t}
 *       image: alpine
 *       labels: {__proto__: lp, hasOwnProperty: lh}
 *     hasOwnProperty: {image: alpine}
 *     toString:   (extends constructor)
 *       environment: {__proto__: p, toString: t}
 *       image: alpine
 *       labels: {__proto__: lp, hasOwnProperty: lh}
 *   volumes: {__proto__: {}, toString: {}}
 *
 * and for `extends: { service: toString }` with no such service it exited 1 with
 * "Cannot extend service 'toString' in .../compose.yaml: Service not found". For a flow mapping
 * (`environment: {__proto__: p, toString: t}`) it printed `environment: {__proto__: p, toString: t}`.
 */
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { renderStack, type CheckedStack, type RenderedConfig } from '../../../src/compose/render.js'
import { loadStack, writeStack } from '../../helpers/compose-stack.js'

const stack = [
  'services:',
  '  __proto__:',
  '    image: alpine',
  '    environment:',
  '      __proto__: p',
  '      constructor: c',
  '      toString: t',
  '      hasOwnProperty: h',
  '    labels:',
  '      __proto__: lp',
  '      constructor: lc',
  '    networks:',
  '      - __proto__',
  '      - hasOwnProperty',
  '      - constructor',
  '    volumes:',
  '      - __proto__:/a',
  '      - toString:/b',
  '  constructor:',
  '    image: alpine',
  '    environment:',
  '      - __proto__=p',
  '      - toString=t',
  '    labels:',
  '      - __proto__=lp',
  '      - hasOwnProperty=lh',
  '  toString:',
  '    image: alpine',
  '    extends: constructor',
  '  hasOwnProperty:',
  '    image: alpine',
  'networks:',
  '  __proto__: {}',
  '  hasOwnProperty: {}',
  '  constructor: {}',
  'volumes:',
  '  __proto__: {}',
  '  toString: {}',
].join('\n')

type Model = Record<string, Record<string, Record<string, unknown>>>

const names = ['__proto__', 'constructor', 'hasOwnProperty', 'toString']

/** The own entries of a mapping, as [key, value] pairs in key order. */
function entriesOf(record: unknown): [string, unknown][] {
  return Object.entries(record as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))
}

/** Every mapping or list in `node` whose prototype is not the plain one, by path. */
function oddPrototypes(node: unknown, path = ''): string[] {
  if (node === null || typeof node !== 'object') return []
  const expected = Array.isArray(node) ? Array.prototype : Object.prototype
  const own = Object.getPrototypeOf(node) === expected ? [] : [path || '(root)']
  return [...own, ...Object.entries(node).flatMap(([key, value]) => oddPrototypes(value, `${path}.${key}`))]
}

/** Checks the entries docker-compose v1 printed for `stack` (see the header). */
function expectV1Entries(model: Model): void {
  const services = model.services!
  expect(Object.keys(services).sort()).toEqual(names)
  expect(entriesOf(services['__proto__']!.environment)).toEqual([
    ['__proto__', 'p'],
    ['constructor', 'c'],
    ['hasOwnProperty', 'h'],
    ['toString', 't'],
  ])
  expect(entriesOf(services['__proto__']!.labels)).toEqual([
    ['__proto__', 'lp'],
    ['constructor', 'lc'],
  ])
  expect(Object.keys(services['__proto__']!.networks as object).sort()).toEqual([
    '__proto__',
    'constructor',
    'hasOwnProperty',
  ])
  for (const name of ['constructor', 'toString']) {
    expect(entriesOf(services[name]!.environment)).toEqual([
      ['__proto__', 'p'],
      ['toString', 't'],
    ])
    expect(entriesOf(services[name]!.labels)).toEqual([
      ['__proto__', 'lp'],
      ['hasOwnProperty', 'lh'],
    ])
  }
  expect(services['hasOwnProperty']!.image).toBe('alpine')
  expect(Object.keys(model.networks!)).toEqual(
    expect.arrayContaining(['__proto__', 'constructor', 'hasOwnProperty']),
  )
  expect(Object.keys(model.volumes!).sort()).toEqual(['__proto__', 'toString'])
}

describe('names that mean something to JavaScript objects are kept as docker-compose v1 keeps them', () => {
  it.each([
    ['yaml', true],
    ['yaml', false],
    ['json', true],
  ] as const)(
    'render (%s, interpolate %s) keeps every such entry with its value',
    async (format, interpolate) => {
      const cwd = writeStack({ 'compose.yaml': stack })
      const result = (await renderStack({
        mode: 'config',
        cwd,
        environment: {},
        format,
        interpolate,
      })) as RenderedConfig
      const model = (format === 'json' ? JSON.parse(result.text) : parse(result.text)) as Model
      expectV1Entries(model)
      const volumes = (model.services!['__proto__']!.volumes as { source: string }[]).map(
        (volume) => volume.source,
      )
      expect(volumes).toEqual(['__proto__', 'toString'])
    },
  )

  it.each([true, false])('the loaded model (interpolate %s) has no prototype set by a key', (interpolate) => {
    const { project } = loadStack({ 'compose.yaml': stack }, { interpolate })
    expectV1Entries(project.model as Model)
    expect(oddPrototypes(project.model)).toEqual([])
  })

  it('keeps such entries through a second -f file and an include', () => {
    const override = [
      'services:',
      '  __proto__:',
      '    environment:',
      '      hasOwnProperty: h2',
      '    networks: [toString]',
      'networks:',
      '  toString: {}',
    ].join('\n')
    const included = ['services:', '  valueOf:', '    image: alpine', 'volumes:', '  constructor: {}'].join(
      '\n',
    )
    const withInclude = `include: [included.yaml]\n${stack}`
    const { project } = loadStack(
      { 'compose.yaml': withInclude, 'override.yaml': override, 'included.yaml': included },
      { files: ['compose.yaml', 'override.yaml'] },
    )
    const model = project.model as Model
    expect(oddPrototypes(model)).toEqual([])
    expect(Object.keys(model.services!).sort()).toEqual([...names, 'valueOf'])
    expect(entriesOf(model.services!['__proto__']!.environment)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['hasOwnProperty', 'h2'],
      ['toString', 't'],
    ])
    expect(Object.keys(model.services!['__proto__']!.networks as object).sort()).toEqual([
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'toString',
    ])
    expect(Object.keys(model.volumes!).sort()).toEqual(['__proto__', 'constructor', 'toString'])
  })

  it.each(names)('refuses extends of a missing service named %s like any other', async (target) => {
    const cwd = writeStack({
      'compose.yaml': [
        'services:',
        '  web:',
        '    image: alpine',
        '    extends:',
        `      service: ${target}`,
      ].join('\n'),
    })
    await expect(renderStack({ mode: 'config', cwd, environment: {} })).rejects.toThrow(
      `service "web" extends "${target}", which is not defined`,
    )
  })

  it('keeps a __proto__ key written in a flow mapping', () => {
    const flow = ['services:', '  web:', '    image: alpine', '    environment: {__proto__: p, toString: t}']
    const { project } = loadStack({ 'compose.yaml': flow.join('\n') })
    const web = (project.model as Model).services!.web!
    expect(entriesOf(web.environment)).toEqual([
      ['__proto__', 'p'],
      ['toString', 't'],
    ])
    expect(oddPrototypes(project.model)).toEqual([])
  })

  it('adds the implicit depends_on of a link to a service named constructor (compose v2 output)', async () => {
    const linked = [
      'services:',
      '  web:',
      '    image: alpine',
      '    links: [constructor]',
      '  constructor:',
      '    image: alpine',
    ]
    const cwd = writeStack({ 'compose.yaml': linked.join('\n') })
    const result = (await renderStack({ mode: 'config', cwd, environment: {} })) as RenderedConfig
    const web = (parse(result.text) as Model).services!.web!
    expect(Object.keys(web.depends_on as object)).toEqual(['constructor'])
  })

  it('reads such names from an env file as variables, with no shadowing reported', () => {
    const { project } = loadStack({
      'compose.yaml': 'services:\n  app:\n    image: "app:${constructor}-${__proto__}"\n',
      '.env': 'constructor=c1\n__proto__=p1\ntoString=t1\nFROM_HOST=${hasOwnProperty}\n',
    })
    const app = (project.model.services as Record<string, { image: string }>).app!
    expect(app.image).toBe('app:c1-p1')
    expect(project.shadowed).toEqual({})
    expect(Object.keys(project.variables).sort()).toEqual([
      'FROM_HOST',
      '__proto__',
      'constructor',
      'toString',
    ])
    // a name the host environment does not set is unset, not a property of process.env's prototype
    expect(project.variables.FROM_HOST).toBe('')
  })

  it('render --check sees a service named __proto__', async () => {
    const cwd = writeStack({
      'compose.yaml': [
        'services:',
        '  __proto__:',
        '    image: alpine',
        '    environment:',
        '      VAULT_TOKEN: x',
      ].join('\n'),
    })
    const result = (await renderStack({ mode: 'check', cwd, environment: {} })) as CheckedStack
    expect(result.problems).toContainEqual(
      expect.objectContaining({ code: 'vault_credential', service: '__proto__', variable: 'VAULT_TOKEN' }),
    )
  })
})
