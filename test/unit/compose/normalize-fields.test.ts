/**
 * Field normalisations of compose v2's model (what `docker compose config` prints): depends_on with its
 * defaults, short secrets/configs in long syntax, build args as a map, empty resources as mappings, and
 * relative resource files made absolute. Keys such as `__proto__` come from the user's YAML and stay
 * keys: nothing reaches Object.prototype.
 */
import { describe, expect, it } from 'vitest'
import {
  absolutizeResourceFiles,
  normalizeBuild,
  normalizeDependsOn,
  normalizeFileMounts,
  normalizeResources,
} from '../../../src/compose/normalize-fields.js'

const own = (text: string) => JSON.parse(text) as Record<string, unknown>

describe('normalizeDependsOn', () => {
  it('fills condition and required, keeping what was given', () => {
    expect(normalizeDependsOn(['db', 'cache'])).toEqual({
      db: { condition: 'service_started', required: true },
      cache: { condition: 'service_started', required: true },
    })
    expect(
      normalizeDependsOn({ db: { condition: 'service_healthy', restart: true, required: false } }),
    ).toEqual({
      db: { condition: 'service_healthy', restart: true, required: false },
    })
  })

  it('keeps a service named __proto__ as an entry', () => {
    const result = normalizeDependsOn(own('{"__proto__": {"condition": "service_healthy"}}'))
    expect(Object.keys(result)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
    expect(normalizeDependsOn(['__proto__'])).toEqual(
      own('{"__proto__": {"condition": "service_started", "required": true}}'),
    )
  })
})

describe('normalizeFileMounts', () => {
  it('writes short entries in long syntax and leaves the rest', () => {
    expect(normalizeFileMounts(['db_password', { source: 'x', target: '/run/x' }])).toEqual([
      { source: 'db_password' },
      { source: 'x', target: '/run/x' },
    ])
    expect(normalizeFileMounts(null)).toBeNull()
  })
})

describe('normalizeBuild', () => {
  const variables: Record<string, string> = { FROM_ENV: 'env-value' }
  const resolve = (name: string) => (Object.hasOwn(variables, name) ? variables[name] : undefined)

  it('turns KEY=value lists into a map; a bare KEY takes the variable or is dropped', () => {
    expect(
      normalizeBuild({ context: '.', args: ['A=1', 'B=x=y', 'FROM_ENV', 'MISSING', 'EMPTY='] }, resolve),
    ).toEqual({
      context: '.',
      args: { A: '1', B: 'x=y', FROM_ENV: 'env-value', EMPTY: '' },
    })
    expect(normalizeBuild({ args: { N: 5, FROM_ENV: null } }, resolve)).toEqual({
      args: { N: '5', FROM_ENV: 'env-value' },
    })
  })

  it('looks no bare name up on Object.prototype and keeps __proto__ an argument', () => {
    const build = normalizeBuild({ args: ['constructor', 'toString', '__proto__=x'] }, resolve) as {
      args: Record<string, unknown>
    }
    expect(Object.entries(build.args)).toEqual([['__proto__', 'x']])
    expect(Object.getPrototypeOf(build.args)).toBe(Object.prototype)
  })

  it('leaves a build without args as it was', () => {
    const build = { context: '.' }
    expect(normalizeBuild(build, resolve)).toBe(build)
  })
})

describe('normalizeResources and absolutizeResourceFiles', () => {
  it('writes empty resources as mappings', () => {
    const model: Record<string, unknown> = {
      volumes: { data: null, logs: { driver: 'local' } },
      networks: null,
    }
    normalizeResources(model)
    expect(model).toEqual({ volumes: { data: {}, logs: { driver: 'local' } }, networks: null })
  })

  it('makes relative secret and config files absolute, leaving absolute ones and ${...} alone', () => {
    const model: Record<string, unknown> = {
      secrets: {
        a: { file: './a.txt' },
        b: { file: '/abs/b' },
        c: { file: '${DIR}/c' },
        d: { environment: 'D' },
      },
      configs: { e: { file: '../e.conf' } },
    }
    absolutizeResourceFiles(model, '/srv/stack')
    expect(model).toEqual({
      secrets: {
        a: { file: '/srv/stack/a.txt' },
        b: { file: '/abs/b' },
        c: { file: '${DIR}/c' },
        d: { environment: 'D' },
      },
      configs: { e: { file: '/srv/e.conf' } },
    })
  })
})
