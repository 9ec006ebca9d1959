import { describe, expect, it } from 'vitest'
import { containersOf, holdsValue, urlPassword } from '../../../src/text/contained-values.js'

describe('urlPassword', () => {
  it.each([
    ['postgresql://app:s3cret-pass@db:5432/app', 's3cret-pass'],
    ['redis://:p%40ss%2Fword@cache:6379', 'p@ss/word'],
    ['mysql://user@db/app', undefined],
    ['s3://key:secret@', 'secret'],
    ['postgresql://app:bad%zzescape@db/app', undefined],
    ['not a url: app:pw@host', undefined],
    ['http://host/path?x=a:b@c', undefined],
  ])('%s -> %s', (value, expected) => {
    expect(urlPassword(value)).toBe(expected)
  })
})

describe('containersOf', () => {
  const values = {
    POSTGRES_PASSWORD: 'canary-pg-p@ss/1',
    DATABASE_URL: 'postgresql://app:canary-pg-p%40ss%2F1@db/app',
    COPY_SECRET: 'canary-pg-p@ss/1',
    DB_USERNAME: 'canary-pg-p@ss/1',
    GLUED: 'xcanary-pg-p@ss/1',
    DATA_DIR: './canary-pg-p@ss/1',
    EMBEDDED: 'prefix canary-pg-p@ss/1 suffix',
    TEMPLATED: 'postgresql://app:canary-pg-p@ss/1@db/app',
    SHORT: 'abc1234',
    SHORT_COPY: 'xxabc1234xx',
    OTHER: 'unrelated-value',
  }

  it('finds whole-word copies, percent-decoded URL passwords and equal secret-looking values, sorted; not a username, a path or a glued word', () => {
    expect(containersOf(values, 'POSTGRES_PASSWORD')).toEqual([
      'COPY_SECRET',
      'DATABASE_URL',
      'EMBEDDED',
      'TEMPLATED',
    ])
  })

  it('leaves out the allowed holders (the templates that reference the secret)', () => {
    expect(containersOf(values, 'POSTGRES_PASSWORD', new Set(['TEMPLATED', 'COPY_SECRET']))).toEqual([
      'DATABASE_URL',
      'EMBEDDED',
    ])
  })

  it('does not look for values shorter than 8 characters, nor for unknown names', () => {
    expect(containersOf(values, 'SHORT')).toEqual([])
    expect(containersOf(values, 'NOPE')).toEqual([])
    expect(containersOf(values, '__proto__')).toEqual([])
    expect(
      containersOf({ ...values, constructor: 'x canary-pg-p@ss/1' } as Record<string, string>, 'COPY_SECRET'),
    ).toContain('constructor')
  })

  it('an empty value is never contained', () => {
    expect(holdsValue('API_TOKEN', 'anything', 'anything')).toBe(true)
    expect(holdsValue('API_TOKEN', 'anything', '')).toBe(false)
    expect(containersOf({ A: '', B: 'x' }, 'A')).toEqual([])
  })

  it.each([
    ['MYSQL_ROOT_PASSWORD', 'somewordpress', 'wordpress', false],
    ['DB_DATA_LOCATION', './postgres', 'postgres', false],
    ['DB_USERNAME', 'postgres', 'postgres', false],
    ['S3_SECRET_KEY', 'minio-secret-1', 'minio-secret-1', true],
    ['APP_CONFIG', '{"password":"minio-secret-1"}', 'minio-secret-1', true],
    ['DATABASE_URL', 'postgresql://u:p%40ss-word-9@h/db', 'p@ss-word-9', true],
  ])('%s = %s holds %s: %s', (name, container, value, expected) => {
    expect(holdsValue(name, container, value)).toBe(expected)
  })
})

describe('containersOf on hostile values', () => {
  it('a 1 MiB value and 200 others, one a URL-looking megabyte, are compared without a regular expression blowing up', () => {
    const values: Record<string, string> = { BIG: 'x'.repeat(1024 * 1024) }
    for (let index = 0; index < 200; index++) values[`S${index}`] = `s${index}-`.repeat(100)
    values.URLISH = `a${'+'.repeat(1024 * 1024)}://${':'.repeat(1024 * 1024)}`
    values.HOLDER = `postgresql://u:${values.S7}@h/db`
    expect(containersOf(values, 'S7')).toEqual(['HOLDER'])
    expect(containersOf(values, 'BIG')).toEqual([])
  })
})
