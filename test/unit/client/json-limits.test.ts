import { describe, expect, it } from 'vitest'
import { jsonLimitExceeded, jsonLimitGuard } from '../../../src/client/json-limits.js'

const limits = { depth: 3, containers: 5 }

describe('jsonLimitExceeded', () => {
  it.each<[string, string, RegExp | undefined]>([
    ['a vault answer', '{"secrets":[{"name":"A"}]}', undefined],
    ['one level too deep', '[[[[]]]]', /nested deeper than 3 levels/],
    ['brackets inside a string do not count', '{"a":"[[[[{{{{"}', undefined],
    ['an escaped quote does not end the string', '{"a":"\\"[[[[[["}', undefined],
    ['an escaped backslash does end it', '{"a":"\\\\"}', undefined],
    ['too many objects side by side', '[{},{},{},{},{}]', /more than 5 objects and arrays/],
    ['not JSON at all, deep', '<html>[[[[', /nested deeper/],
  ])('%s', (_case, text, problem) => {
    const found = jsonLimitExceeded(text, limits)
    if (problem) expect(found).toMatch(problem)
    else expect(found).toBeUndefined()
  })
})

describe('jsonLimitGuard', () => {
  it('keeps its state across pieces: a string split at its escape, bytes or text', () => {
    const guard = jsonLimitGuard(limits)
    for (const piece of ['{"a":"\\', '"[[[[', '"}']) expect(guard(piece)).toBeUndefined()
    const bytes = jsonLimitGuard(limits)
    expect(bytes(Buffer.from('[[['))).toBeUndefined()
    expect(bytes(Buffer.from('['))).toMatch(/nested deeper than 3 levels/)
  })

  it('a multi-byte UTF-8 character never reads as a quote or a bracket', () => {
    const guard = jsonLimitGuard(limits)
    expect(guard(Buffer.from('{"a":"é[[[[[ ✓ 🎉"}'))).toBeUndefined()
  })
})
