import { describe, expect, it } from 'vitest'
import { subjectMatches, subjectPatternProblem } from '../../../../src/server/tokens/subject-pattern.js'

describe('subject patterns', () => {
  it.each([
    ['repo:acme/stack:ref:refs/heads/main', 'repo:acme/stack:ref:refs/heads/main', true],
    ['repo:acme/stack:ref:refs/heads/main', 'repo:acme/stack:ref:refs/heads/mainx', false],
    ['repo:acme/stack:ref:refs/heads/*', 'repo:acme/stack:ref:refs/heads/main', true],
    ['repo:acme/stack:ref:refs/heads/*', 'repo:acme/stack:ref:refs/heads/feature/x', true],
    ['repo:acme/stack:ref:refs/heads/*', 'repo:acme/stack:ref:refs/tags/v1', false],
    // a * never crosses a ':' segment boundary
    ['repo:acme/stack:ref:refs/heads/*', 'repo:acme/stack:ref:refs/heads/main:extra', false],
    ['repo:acme/*:ref:refs/heads/main', 'repo:acme/x:ref:evil:ref:refs/heads/main', false],
    ['repo:acme*:ref:refs/heads/main', 'repo:acme:evil:ref:refs/heads/main', false],
    ['repo:acme/*:environment:prod', 'repo:acme/stack:environment:prod', true],
    ['repo:*/stack:environment:prod', 'repo:mallory/stack:environment:prod', true],
    ['repo:acme/*-api:*:prod', 'repo:acme/billing-api:environment:prod', true],
    ['repo:acme/*-api:*:prod', 'repo:acme/billing-web:environment:prod', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'aXbYcZ', false],
    // literal characters that mean something to other globs or regular expressions
    ['repo:acme/st?ck:ref', 'repo:acme/stack:ref', false],
    ['repo:acme/[s]tack:ref', 'repo:acme/stack:ref', false],
    ['repo:acme/.*:ref', 'repo:acme/stack:ref', false],
    ['repo:acme/.*:ref', 'repo:acme/.xyz:ref', true],
    ['__proto__:*', '__proto__:x', true],
    ['constructor', 'toString', false],
  ])('%s against %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected)
  })

  it('answers a pattern of many stars against a long near-miss (a backtracking regex would not return)', () => {
    expect(subjectMatches(`${'a*'.repeat(200)}b`, 'a'.repeat(500))).toBe(false)
    expect(subjectMatches(`${'a*'.repeat(200)}b`, `${'a'.repeat(499)}b`)).toBe(true)
  })

  it('refuses a subject longer than 512 characters', () => {
    expect(subjectMatches('*', 'a'.repeat(513))).toBe(false)
  })

  it.each([
    ['', /empty/],
    ['*', /every subject/],
    ['*:*:*', /every subject/],
    ['repo:acme\n:x', /control/],
    ['x'.repeat(513), /longer/],
  ])('refuses the pattern %j', (pattern, problem) => {
    expect(subjectPatternProblem(pattern)).toMatch(problem)
  })

  it('accepts a pattern that names a segment', () => {
    expect(subjectPatternProblem('repo:acme/stack:*')).toBeUndefined()
  })
})
