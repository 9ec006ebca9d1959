/**
 * The console's URLs: whatever a project, environment, secret or identity is called, its path has the
 * same segments once a browser has parsed it (WHATWG URL is the oracle), so a name holding `/`, `..`,
 * `?` or `#` cannot point a link or a form at another page. The names `.` and `..` are the exception
 * no encoding can help (WHATWG URL also reads `%2e%2e` as `..`): the server's slug rule for projects
 * and environments (src/server/identities.ts) never lets them be names.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { paths } from '../../../../src/server/console/paths.js'

/** The decoded path segments a browser requests for `path`. */
function segments(path: string): string[] {
  const url = new URL(path, 'https://vault.example')
  expect(url.search).toBe('')
  expect(url.hash).toBe('')
  return url.pathname.split('/').slice(1).map(decodeURIComponent)
}

const hostile = [
  '...',
  '.a',
  '%2e%2e',
  'a/b',
  '?x=1',
  '#top',
  '\\..\\',
  ' ',
  '__proto__',
  'constructor',
  'é/ü',
  '%',
]

describe('paths', () => {
  it('keeps every name one segment of the path a browser requests', () => {
    const name = fc
      .oneof(fc.constantFrom(...hostile), fc.string({ minLength: 1, maxLength: 12 }))
      .filter((text) => text !== '.' && text !== '..')
    fc.assert(
      fc.property(name, name, name, (project, env, key) => {
        expect(segments(paths.secret(project, env, key))).toEqual([
          'console',
          'projects',
          project,
          'environments',
          env,
          'secrets',
          key,
        ])
        expect(segments(paths.rotateIdentity(project, key))).toEqual([
          'console',
          'projects',
          project,
          'identities',
          key,
          'rotate',
        ])
        expect(segments(paths.reveal(project, env, key)).at(-1)).toBe('reveal')
        expect(segments(paths.deleteWebhook(project, key)).slice(2)).toEqual([
          project,
          'webhooks',
          key,
          'delete',
        ])
      }),
      { numRuns: 500 },
    )
  })

  it('cannot keep `..` a segment (hence the slug rule for the names in paths)', () => {
    expect(segments(paths.environment('..', 'x'))).toEqual(['console', 'environments', 'x'])
  })

  it('gives the fixed pages their own paths', () => {
    expect(segments(paths.signIn)).toEqual(['console', 'sign-in'])
    expect(segments(paths.audit('p'))).toEqual(['console', 'projects', 'p', 'audit'])
  })
})
