/** Parameter objects (issue 21): no function of src/ takes 5 or more positional parameters. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findWideFunctions } from '../../../scripts/positional-params.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))

describe('positional parameters in src/', () => {
  it('no function takes 5 or more', () => {
    const wide = findWideFunctions(['src'], root)
    expect(wide.map((entry) => `${entry.file}:${entry.line} ${entry.name}(${entry.parameters})`)).toEqual([])
  })

  it('the counter sees declarations, methods, arrows and constructors; not `this`, overloads or types', () => {
    const dir = mkdtempSync(join(tmpdir(), 'params-'))
    try {
      writeFileSync(
        join(dir, 'sample.ts'),
        [
          'export function five(a: 1, b: 2, c: 3, d: 4, e: 5) {}',
          'export function four(this: unknown, a: 1, b: 2, c: 3, d: 4) {}',
          'export function over(a: 1, b: 2, c: 3, d: 4, e: 5): void',
          'export function over(...all: unknown[]) {}',
          'export type Callback = (a: 1, b: 2, c: 3, d: 4, e: 5) => void',
          'export const arrow = (a: 1, b: 2, c: 3, d: 4, { e }: { e: 5 }) => e',
          'export class K { constructor(a: 1, b: 2, c: 3, d: 4, e: 5) {} method(a: 1, b: 2, c: 3, d: 4, e: 5, f: 6) {} }',
        ].join('\n'),
      )
      const found = findWideFunctions(['.'], dir).map((entry) => [entry.name, entry.parameters])
      expect(found).toEqual([
        ['five', 5],
        ['arrow', 5],
        ['constructor', 5],
        ['method', 6],
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
