/**
 * What a literal in a stack's files is. The oracles are the readers of what these functions produce:
 * WHATWG `URL` for where a URL's password sits, and the CLI's own template resolver
 * (src/client/resolve-templates.ts, what every reader of a stored template runs) for templateOf: a
 * template must resolve back to exactly the value it was made from, or not be made at all.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resolveTemplates } from '../../../src/client/resolve-templates.js'
import {
  isPublishedPlaceholder,
  notASecretValue,
  templateLiteral,
  templateOf,
  urlPassword,
} from '../../../src/stack/value-kinds.js'

/** The value a reader gets from `template` when secret `name` holds `inner`. */
function resolve(template: string, inner: string, name: string): string {
  const [resolved] = resolveTemplates([
    { name: 'HOLDER', value: template, template: true },
    { name, value: inner },
  ])
  return resolved!.value
}

describe('urlPassword', () => {
  const safe = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/)

  it('finds the password where WHATWG URL finds it, for URLs of plain characters', () => {
    fc.assert(
      fc.property(safe, safe, safe, (user, password, host) => {
        const url = `postgresql://${user}:${password}@${host}:5432/app?sslmode=require`
        const found = urlPassword(url)
        expect(found?.password).toBe(new URL(url).password)
        expect(url.slice(found!.start, found!.end)).toBe(password)
      }),
    )
  })

  it.each([
    'postgresql://app@db/app',
    'https://db:5432/x:y@z',
    'http://host/?q=a:b@c',
    'mailto:user:pass@host',
    'redis://:@host',
  ])('finds none where there is none: %s', (url) => {
    expect(urlPassword(url)).toBeUndefined()
  })

  it('takes an empty user (redis://:password@host)', () => {
    const url = 'redis://:s3cret@cache:6379'
    expect(urlPassword(url)?.password).toBe(new URL(url).password)
  })
})

describe('notASecretValue', () => {
  it.each([
    ['', 'optional: empty by default'],
    ['${OTHER}', 'its default names another variable'],
    ['Yes', 'a boolean'],
    ['off', 'a boolean'],
    ['5432', 'a number'],
    ['-0.5', 'a number'],
    ['postgres://u:p@db/x', 'a URL with a password'],
    ['https://example.org/x', 'a URL without credentials'],
    ['/run/secrets/db', 'a path'],
    ['./certs/server.pem', 'a path'],
    ['tls.KEY', 'a path'],
  ])('calls %j %s', (value, kind) => {
    expect(notASecretValue(value)).toBe(kind)
  })

  it.each(['hunter2hunter2', '12345678901', 'constructor', '__proto__', 'truely', 'x\n/etc'])(
    'leaves %j to be judged as a secret',
    (value) => {
      expect(notASecretValue(value)).toBeUndefined()
    },
  )
})

describe('templateOf', () => {
  const names = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/)
  const text = fc.string({
    unit: fc.constantFrom('a', 'b', '$', '{', '}', ':', '@', '/', 'x'),
    maxLength: 16,
  })

  it('makes templates that resolve back to the value itself (or makes none)', () => {
    fc.assert(
      fc.property(
        text,
        text.filter((inner) => inner !== ''),
        names,
        (value, inner, name) => {
          const template = templateOf(value, inner, name)
          if (template === undefined) return
          expect(resolve(template, inner, name)).toBe(value)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('turns a URL password into a reference and keeps the rest literal', () => {
    const value = 'postgresql://app:pw${x}@db/app?opt=${y}'
    const template = templateOf(value, 'pw${x}', 'DB_PASSWORD')
    expect(template).toBe('postgresql://app:${DB_PASSWORD}@db/app?opt=$${y}')
    expect(resolve(template!, 'pw${x}', 'DB_PASSWORD')).toBe(value)
  })

  it('makes no template of a URL whose password is another value', () => {
    expect(templateOf('postgresql://app:other@db/app', 'app', 'DB_PASSWORD')).toBeUndefined()
  })

  it('makes none for an empty or absent inner value', () => {
    expect(templateOf('abc', '', 'A')).toBeUndefined()
    expect(templateOf('abc', 'zz', 'A')).toBeUndefined()
  })

  it('makes none where a `$` stands right before the value: the syntax cannot write `$` then a reference', () => {
    // `x$` + `${A}` would be `x$${A}`, which a reader takes as the literal `x${A}`
    expect(templateOf('x$secret', 'secret', 'A')).toBeUndefined()
  })

  it('escapes every literal `${` (templateLiteral)', () => {
    expect(templateLiteral('${a}${b}')).toBe('$${a}$${b}')
  })
})

describe('isPublishedPlaceholder', () => {
  it.each([
    'CHANGEME',
    'change-me',
    'Change_This!',
    'password',
    'Passw0rd',
    'xxxxxx',
    '',
    'your-secret-here',
    'an example',
  ])('calls %j a placeholder', (value) => {
    expect(isPublishedPlaceholder(value)).toBe(true)
  })

  it.each(['k3Jq9vZ2pW', 'constructor', '__proto__', 'hasOwnProperty'])('does not call %j one', (value) => {
    expect(isPublishedPlaceholder(value)).toBe(false)
  })
})
