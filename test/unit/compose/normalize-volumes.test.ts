/**
 * Short volume specs in compose v2's long syntax, as compose-go's `format.ParseVolume` reads them
 * (cases after its loader/volume_test.go), and the target cleaned as Go's `path.Clean` cleans it.
 */
import { describe, expect, it } from 'vitest'
import { cleanPath, longVolume, parseShortVolume } from '../../../src/compose/normalize-volumes.js'

describe('parseShortVolume', () => {
  it.each([
    ['/data', { type: 'volume', target: '/data', volume: {} }],
    ['db:/var/lib/db', { type: 'volume', source: 'db', target: '/var/lib/db', volume: {} }],
    ['db:/data:nocopy', { type: 'volume', source: 'db', target: '/data', volume: { nocopy: true } }],
    ['/host:/ctr', { type: 'bind', source: '/host', target: '/ctr', bind: { create_host_path: true } }],
    [
      './conf:/etc/conf:ro',
      {
        type: 'bind',
        source: './conf',
        target: '/etc/conf',
        read_only: true,
        bind: { create_host_path: true },
      },
    ],
    ['~/x:/x:rw', { type: 'bind', source: '~/x', target: '/x', bind: { create_host_path: true } }],
    [
      '/a:/b:ro,z,rshared',
      {
        type: 'bind',
        source: '/a',
        target: '/b',
        read_only: true,
        bind: { selinux: 'z', propagation: 'rshared', create_host_path: true },
      },
    ],
    [
      'C:\\data:/data',
      { type: 'bind', source: 'C:\\data', target: '/data', bind: { create_host_path: true } },
    ],
    [
      '\\\\srv\\share:/s',
      { type: 'bind', source: '\\\\srv\\share', target: '/s', bind: { create_host_path: true } },
    ],
    ['${DATA:-./data}:/data', { type: 'volume', source: '${DATA:-./data}', target: '/data', volume: {} }],
    ['db:/data/../x/', { type: 'volume', source: 'db', target: '/x', volume: {} }],
    ['x', { type: 'volume', target: 'x' }],
    // one letter before `:` is a Windows drive to compose-go too (isWindowsDrive)
    ['a:b:c:ro', { type: 'bind', source: 'a:b', target: 'c:ro', bind: { create_host_path: true } }],
    [
      'a:b:/c:ro',
      { type: 'bind', source: 'a:b', target: '/c', read_only: true, bind: { create_host_path: true } },
    ],
  ])('reads %j', (spec, long) => {
    expect(parseShortVolume(spec)).toEqual(long)
  })

  it.each(['', ':/x', '/a::/b', 'vol:/b:ro:extra', '/a:/b:'])(
    'leaves %j to be printed as written',
    (spec) => {
      expect(parseShortVolume(spec)).toBeUndefined()
      expect(longVolume(spec)).toBe(spec)
    },
  )
})

describe('cleanPath', () => {
  it.each([
    ['', ''],
    ['/', '/'],
    ['a/', 'a'],
    ['/a/b/../c/./d/', '/a/c/d'],
    ['//a//b', '/a/b'],
    ['a/..', '.'],
    ['/..', '/'],
  ])('cleans %j to %j, as Go does', (path, clean) => {
    expect(cleanPath(path)).toBe(clean)
  })
})

describe('longVolume', () => {
  it('fills create_host_path of a given bind, cleans the target, keeps the rest', () => {
    expect(
      longVolume({ type: 'bind', source: '.', target: '/app/', bind: { propagation: 'shared' } }),
    ).toEqual({
      type: 'bind',
      source: '.',
      target: '/app',
      bind: { propagation: 'shared', create_host_path: true },
    })
    expect(longVolume({ type: 'bind', target: '/a', bind: { create_host_path: false } })).toEqual({
      type: 'bind',
      target: '/a',
      bind: { create_host_path: false },
    })
  })

  it('returns anything else as it was', () => {
    for (const entry of [null, 5, ['a'], true]) expect(longVolume(entry)).toBe(entry)
  })

  it('keeps an own __proto__ field as a field', () => {
    const entry = JSON.parse('{"target":"/a","__proto__":{"polluted":true}}') as object
    const long = longVolume(entry) as Record<string, unknown>
    expect(Object.getPrototypeOf(long)).toBe(Object.prototype)
    expect((long as { polluted?: unknown }).polluted).toBeUndefined()
  })
})
