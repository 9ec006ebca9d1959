import { describe, expect, it } from 'vitest'
import { describeCaveats } from '../../../src/export/export-secrets.js'

describe('describeCaveats', () => {
  it.each([
    [{}, undefined],
    [{ A: ['docker-compose-v1'] }, 'docker-compose-v1 (A)'],
    [
      Object.fromEntries(['A', 'B', 'C', 'D', 'E', 'F', 'G'].map((name) => [name, ['docker-compose-v1']])),
      'docker-compose-v1 (A, B, C, D, E and 2 more)',
    ],
  ] as const)('%j', (caveats, expected) => {
    const text = describeCaveats(caveats as never)
    if (expected === undefined) expect(text).toBeUndefined()
    else expect(text).toContain(expected)
  })
})
