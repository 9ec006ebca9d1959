/**
 * `extends` within a file and from another one, merged with compose's rules: the chain of bases is
 * reported, a cycle and a missing base are located errors, and a chain longer than 100 is refused at once
 * (a hostile file of thousands of links would otherwise overflow the stack). A base named like an
 * Object.prototype key is a service like any other, or missing.
 */
import { describe, expect, it } from 'vitest'
import { ComposeInputError } from '../../../src/compose/errors.js'
import { maxExtendsDepth, resolveExtends, type LoadedFile } from '../../../src/compose/extends.js'

const file = (path: string, services: Record<string, unknown>): LoadedFile => ({
  file: path,
  model: { services },
  lines: new Map([['services.web.extends', 7]]),
})

const noFiles = (path: string): LoadedFile => {
  throw new Error(`unexpected load of ${path}`)
}

describe('resolveExtends', () => {
  it('merges a base of the same file and one of another file, reporting the chain', () => {
    const common = file('/stack/common.yaml', {
      base: { image: 'app', environment: { A: '1' }, ports: ['80:80'] },
    })
    const loaded: string[] = []
    const resolved = resolveExtends(
      file('/stack/compose.yaml', {
        mid: { extends: { file: 'common.yaml', service: 'base' }, environment: ['B=2'] },
        web: { extends: 'mid', command: ['serve'], ports: ['443:443'] },
      }),
      (path) => (loaded.push(path), common),
    )
    expect(resolved.services.web).toEqual({
      image: 'app',
      environment: { A: '1', B: '2' },
      ports: ['80:80', '443:443'],
      command: ['serve'],
    })
    expect(resolved.bases.web).toEqual([
      { file: '/stack/compose.yaml', service: 'mid' },
      { file: '/stack/common.yaml', service: 'base' },
    ])
    expect(loaded).toEqual(['/stack/common.yaml'])
  })

  it('names a cycle and where it is', () => {
    const error = (() => {
      try {
        resolveExtends(file('/c.yaml', { web: { extends: 'db' }, db: { extends: 'web' } }), noFiles)
      } catch (thrown) {
        return thrown as ComposeInputError
      }
    })()
    expect(error).toBeInstanceOf(ComposeInputError)
    expect(error!.message).toMatch(/extends cycle: web -> db -> web/)
    expect(error!.message).toMatch(/c\.yaml:7/)
  })

  it.each(['missing', '__proto__', 'constructor', 'toString'])(
    'refuses a base %s that is not a service',
    (base) => {
      expect(() => resolveExtends(file('/c.yaml', { web: { extends: base } }), noFiles)).toThrow(
        `service "web" extends "${base}", which is not defined in /c.yaml`,
      )
    },
  )

  it('takes a service named __proto__ as a base', () => {
    const services = JSON.parse('{"__proto__": {"image": "x"}, "web": {"extends": "__proto__"}}') as Record<
      string,
      unknown
    >
    const resolved = resolveExtends(file('/c.yaml', services), noFiles)
    expect(resolved.services.web).toEqual({ image: 'x' })
    expect(Object.keys(resolved.services).sort()).toEqual(['__proto__', 'web'])
  })

  it(`allows a chain of ${maxExtendsDepth} links and refuses a longer one at once`, () => {
    const chain = (links: number) => {
      const services: Record<string, unknown> = { s0: { image: 'base' } }
      for (let index = 1; index <= links; index++) services[`s${index}`] = { extends: `s${index - 1}` }
      return file('/c.yaml', services)
    }
    expect(resolveExtends(chain(maxExtendsDepth), noFiles).services[`s${maxExtendsDepth}`]).toEqual({
      image: 'base',
    })
    const started = performance.now()
    expect(() => resolveExtends(chain(5000), noFiles)).toThrow(/extends a chain of more than 100 services/)
    expect(performance.now() - started).toBeLessThan(2000)
  })
})
