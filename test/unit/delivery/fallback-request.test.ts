/**
 * The light entry to `--fallback`: --fallback-max-age parsed into milliseconds (a bad one a usage error
 * at start), the session options, and the fetch without a policy resolving templates and loading nothing
 * else.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import { fetchSecrets, parseMaxAge, sessionOptionsFor } from '../../../src/delivery/fallback-request.js'

describe('parseMaxAge', () => {
  const seconds = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }

  it('reads a count and a unit, in either case and with spaces around', () => {
    fc.assert(
      fc.property(
        fc.nat(100_000),
        fc.constantFrom('', 's', 'm', 'h', 'd', 'w', 'S', 'H', 'D', 'W'),
        fc.constantFrom('', ' ', '\t'),
        (count, unit, space) => {
          const factor = seconds[(unit || 's').toLowerCase() as keyof typeof seconds]
          expect(parseMaxAge(`${space}${count}${space}${unit}${space}`)).toBe(count * factor * 1000)
        },
      ),
    )
  })

  it.each([
    '',
    'h',
    '12x',
    '1.5h',
    '-1h',
    '12 h h',
    '1h30m',
    '0x10',
    '1e3',
    'Infinity',
    '12hours',
    '٣h',
    '1hh',
    '2ws',
  ])('refuses %j as a usage error naming the flag', (text) => {
    expect(() => parseMaxAge(text)).toThrow(UsageError)
    expect(() => parseMaxAge(text)).toThrow(/--fallback-max-age must be a duration/)
  })

  it('shows a hostile value as JSON, control characters escaped', () => {
    expect(() => parseMaxAge('1h\u001b[2J')).toThrow('got "1h\\u001b[2J"')
  })
})

describe('sessionOptionsFor', () => {
  it('stops retrying an unreachable vault only when a fallback is there to use', () => {
    expect(sessionOptionsFor(undefined)).toEqual({})
    expect(sessionOptionsFor({ only: false, maxAgeMs: 1, warn: () => undefined })).toEqual({
      retryUnreachable: false,
    })
  })
})

describe('fetchSecrets', () => {
  it('resolves templates without a policy', async () => {
    const got = await fetchSecrets(undefined, {}, async () => [
      { name: 'PASSWORD', value: 'p$w' },
      { name: 'URL', value: 'db://u:${PASSWORD}@h/$${literal}', template: true },
    ])
    expect(got.map(({ name, value }) => [name, value])).toEqual([
      ['PASSWORD', 'p$w'],
      ['URL', 'db://u:p$w@h/${literal}'],
    ])
  })

  it('passes the fetch error on without a policy', async () => {
    await expect(
      fetchSecrets(undefined, {}, async () => {
        throw new Error('unreachable')
      }),
    ).rejects.toThrow('unreachable')
  })
})
