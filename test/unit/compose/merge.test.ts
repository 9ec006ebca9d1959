/**
 * Compose's merge rules for several `-f` files and `extends`. The cases are compose-go's own
 * (override/merge_mounts_test.go, merge_volumes_test.go at compose-spec/compose-go e70e961) and the
 * examples of the Compose Specification's merge page (docs.docker.com/reference/compose-file/merge):
 * mappings merge, sequences append, command/entrypoint/healthcheck.test are replaced, and volumes,
 * secrets and configs are unique by their mount target (a secret's default /run/secrets/SOURCE).
 */
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { listToMap, mergeModels, mergeService } from '../../../src/compose/merge.js'

const yaml = (text: string) => parse(text) as Record<string, unknown>

describe('mergeModels', () => {
  it('merges secrets by mount target (compose-go Test_mergeYamlServiceMount)', () => {
    const merged = mergeModels(
      yaml('services:\n  test:\n    image: foo\n    secrets: [foo, bar, zot]\n'),
      yaml(
        'services:\n  test:\n    image: foo\n    secrets:\n      - source: zot\n        target: /run/secrets/foo\n',
      ),
    )
    expect(merged).toEqual(
      yaml(
        'services:\n  test:\n    image: foo\n    secrets:\n      - source: zot\n        target: /run/secrets/foo\n      - bar\n      - zot\n',
      ),
    )
  })

  it('keeps a second mount of the same secret at another target', () => {
    const merged = mergeService({ secrets: ['db'] }, { secrets: [{ source: 'db', target: '/custom' }] })
    expect(merged.secrets).toEqual(['db', { source: 'db', target: '/custom' }])
    const configs = mergeService({ configs: ['app'] }, { configs: [{ source: 'other', target: '/app' }] })
    expect(configs.configs).toEqual([{ source: 'other', target: '/app' }])
  })

  it('appends volumes of new targets (compose-go TestMergeVolumes) and replaces one at the same target', () => {
    const base = yaml('volumes:\n  - a:/a\n  - type: bind\n    source: ./b\n    target: /b\n')
    expect(mergeService(base, { volumes: ['c:/c'] }).volumes).toEqual([
      ...(base.volumes as unknown[]),
      'c:/c',
    ])
    expect(mergeService(base, { volumes: [{ type: 'volume', source: 'x', target: '/a' }] }).volumes).toEqual([
      { type: 'volume', source: 'x', target: '/a' },
      (base.volumes as unknown[])[1],
    ])
  })

  it('follows the specification examples: mappings merge, sequences append, commands are replaced', () => {
    const merged = mergeModels(
      yaml(
        'services:\n  foo:\n    key1: value1\n    key2: value2\n    dns: [1.1.1.1]\n    command: [echo, foo]\n',
      ),
      yaml(
        'services:\n  foo:\n    key2: VALUE\n    key3: value3\n    dns: [8.8.8.8]\n    command: [echo, bar]\n',
      ),
    )
    expect(merged).toEqual(
      yaml(
        'services:\n  foo:\n    key1: value1\n    key2: VALUE\n    dns: [1.1.1.1, 8.8.8.8]\n    command: [echo, bar]\n    key3: value3\n',
      ),
    )
  })

  it('merges environment given as a list and as a map, the override winning', () => {
    const merged = mergeService({ environment: ['A=1', 'B=2', 'BARE'] }, { environment: { B: '3', C: null } })
    expect(merged.environment).toEqual({ A: '1', B: '3', BARE: null, C: null })
  })

  it('replaces healthcheck.test and merges the rest of the healthcheck', () => {
    const merged = mergeService(
      { healthcheck: { test: ['CMD', 'a', 'b'], interval: '5s' } },
      { healthcheck: { test: ['CMD', 'c'] } },
    )
    expect(merged.healthcheck).toEqual({ test: ['CMD', 'c'], interval: '5s' })
  })

  it('keeps __proto__ a service and a key, touching no prototype', () => {
    const merged = mergeModels(
      JSON.parse('{"services": {"__proto__": {"image": "a"}}}') as Record<string, unknown>,
      JSON.parse(
        '{"services": {"__proto__": {"environment": {"__proto__": "x"}}}, "__proto__": {"y": 1}}',
      ) as Record<string, unknown>,
    )
    const services = merged.services as Record<string, Record<string, unknown>>
    expect(Object.keys(services)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(services)).toBe(Object.prototype)
    expect(Object.hasOwn(merged, '__proto__')).toBe(true)
    expect(Object.keys(listToMap(['__proto__=1']))).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).y).toBeUndefined()
  })
})
