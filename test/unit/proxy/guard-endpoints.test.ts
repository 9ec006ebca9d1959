/**
 * The endpoint map of the body checks (pure): which endpoints take no body, and which paths name an API
 * version below 1.24, compared as Moby compares versions.
 */
import { describe, expect, it } from 'vitest'
import { compareApiVersions, isLegacyApiVersion, takesNoBody } from '../../../src/proxy/guard-endpoints.js'

describe('endpoints that take no body', () => {
  it.each([
    ['/containers/web/start', true],
    ['/v1.23/containers/web/stop/', true],
    ['/v1.41/containers/a/b/kill', true],
    ['/v4.0/libpod/containers/web/pause', true],
    ['/libpod/pods/p/unpause', true],
    ['/v1.41/containers/web/restart', true],
    ['/v1.41/containers/create', false],
    ['/v1.41/containers/web/update', false],
    ['/v1.41/exec/abc/start', false],
    ['/v1.41/containers/web/attach', false],
  ])('POST %s: %s', (path, expected) => {
    expect(takesNoBody('POST', path)).toBe(expected)
  })
})

describe('API versions below 1.24', () => {
  it.each([
    ['/v1.23/containers/x/start', true],
    ['/v1.23./containers/x/start', true],
    ['/v1.023/containers/x/start', true],
    ['/v1.9/containers/x/start', true],
    ['/v0.99/containers/x/start', true],
    ['/v./containers/x/start', true],
    ['/v99999999999999999999.0/containers/x/start', true],
    ['/v1.24/containers/x/start', false],
    ['/v1.24.0/containers/x/start', false],
    ['/v1.100/containers/x/start', false],
    ['/v4.0/libpod/containers/x/start', false],
    ['/containers/x/start', false],
    ['/version', false],
  ])('%s: %s', (path, expected) => {
    expect(isLegacyApiVersion(path)).toBe(expected)
  })

  it.each([
    ['1.23', '1.24', -1],
    ['1.24', '1.24', 0],
    ['1.24.0', '1.24', 0],
    ['1.3', '1.24', -1],
    ['2', '1.24', 1],
  ])('compares %s with %s as Moby does', (a, b, expected) => {
    expect(compareApiVersions(a, b)).toBe(expected)
  })
})
