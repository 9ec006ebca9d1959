/**
 * If-Match / If-None-Match on a write (RFC 9110 section 13.1): the cases of the RFC's own text, checked
 * here against rows of a live, a deleted and a missing secret.
 */
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../../../src/server/http/http.js'
import { checkPreconditions, type Preconditions } from '../../../../src/server/http/preconditions.js'
import type { SecretRow } from '../../../../src/server/secrets/secret-rows.js'

const row = (version: number, deleted = 0): SecretRow => ({
  id: 's1',
  name: 'DB_PASSWORD',
  version,
  deleted,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
})

/** The status the write gets: 200 when it may go on. */
function outcome(conditions: Preconditions, current: SecretRow | undefined): number {
  try {
    checkPreconditions(conditions, current)
    return 200
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return error.status
  }
}

describe('checkPreconditions', () => {
  it('lets a write without conditions through', () => {
    expect(outcome({}, undefined)).toBe(200)
    expect(outcome({}, row(3))).toBe(200)
  })

  it.each([
    ['"3"', 200],
    ['"2"', 412],
    ['"2", "3"', 200],
    [' "1" ,"3" ', 200],
    ['*', 200],
    ['W/"3"', 412],
    ['W/"2", "3"', 200],
  ])('If-Match %s on version 3: %i', (header, status) => {
    expect(outcome({ ifMatch: header }, row(3))).toBe(status)
  })

  it('If-Match never matches a missing or deleted secret, not even with *', () => {
    for (const current of [undefined, row(3, 1)]) {
      expect(outcome({ ifMatch: '*' }, current)).toBe(412)
      expect(outcome({ ifMatch: '"3"' }, current)).toBe(412)
    }
  })

  it.each([
    ['*', 412],
    ['"3"', 412],
    ['W/"3"', 412],
    ['"1", W/"3"', 412],
    ['"2"', 200],
    ['W/"2"', 200],
  ])('If-None-Match %s on version 3: %i', (header, status) => {
    expect(outcome({ ifNoneMatch: header }, row(3))).toBe(status)
  })

  it('If-None-Match: * lets a create through when the secret is missing or deleted', () => {
    expect(outcome({ ifNoneMatch: '*' }, undefined)).toBe(200)
    expect(outcome({ ifNoneMatch: '*' }, row(4, 1))).toBe(200)
  })

  it.each(['3', '"3', '*, "3"', 'W/3', '"a"b', '', ',', '"3",', 'w/"3"', '"3"\n"4"'])(
    'answers a malformed tag list %j with 400, on either header',
    (header) => {
      expect(outcome({ ifMatch: header }, row(3))).toBe(400)
      expect(outcome({ ifNoneMatch: header }, row(3))).toBe(400)
    },
  )

  it('reads a long hostile header in linear time', () => {
    const header = '"1",'.repeat(20_000) + ' x'
    const started = performance.now()
    expect(outcome({ ifMatch: header }, row(3))).toBe(400)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it('says why a weak tag did not match', () => {
    expect(() => checkPreconditions({ ifMatch: 'W/"3"' }, row(3))).toThrow(/weak tags never match/)
  })
})
