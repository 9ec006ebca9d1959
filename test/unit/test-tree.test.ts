// The unit tests mirror src/ (docs/testing.md): test/unit/a/b.test.ts tests src/a/b.ts, and
// test/unit/a/b.<aspect>.test.ts one more aspect of it. A unit test that names no module fails here,
// so the mirror cannot rot; the share of modules with a mirrored test is printed, not required.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  crossModule,
  filesUnder,
  moduleOf,
  root,
  sourceModules,
  testTree,
  unitTests,
} from '../../scripts/test-tree.mjs'

describe('the unit test tree', () => {
  const modules = sourceModules()
  const tree = testTree(
    modules,
    unitTests().filter((test) => !(test in crossModule)),
  )

  it('matches a test to its module, or to none (the check itself)', () => {
    const known = ['proxy/rules', 'proxy/rule-sets', 'errors']
    expect(moduleOf('proxy/rules', known)).toBe('proxy/rules')
    expect(moduleOf('proxy/rules.property', known)).toBe('proxy/rules')
    expect(moduleOf('errors', known)).toBe('errors')
    expect(moduleOf('proxy/rules-property', known)).toBeUndefined()
    expect(moduleOf('compose/rules', known)).toBeUndefined()
    expect(moduleOf('proxy/.rules', known)).toBeUndefined()
    expect(testTree(known, ['proxy/rules.fuzz', 'proxy/bounds'])).toEqual({
      tested: ['proxy/rules'],
      untested: ['proxy/rule-sets', 'errors'],
      unmatched: ['proxy/bounds'],
    })
  })

  it('names a module of src/ in every unit test file (<module>.test.ts or <module>.<aspect>.test.ts)', () => {
    expect(tree.unmatched.map((test) => `test/unit/${test}.test.ts`)).toEqual([])
  })

  it('lists only cross-module tests that exist and name no single module', () => {
    const tests = new Set(unitTests())
    const stale = Object.keys(crossModule).filter((test) => !tests.has(test) || moduleOf(test, modules))
    expect(stale).toEqual([])
  })

  it('keeps helper modules in test/helpers/, not beside the unit tests', () => {
    const notTests = filesUnder(join(root, 'test/unit'), '').filter((path) => !path.endsWith('.test.ts'))
    expect(notTests).toEqual([])
  })

  it('tests in test/helpers/ only the helpers that are there', () => {
    const helpers = readdirSync(join(root, 'test/helpers'))
    const orphans = helpers
      .filter((name) => name.endsWith('.test.ts'))
      .filter((name) => !helpers.includes(name.replace(/\.test\.ts$/, '.ts')))
    expect(orphans).toEqual([])
  })

  it('reports the share of source files with a mirrored unit test', () => {
    const ratio = tree.tested.length / modules.length
    console.log(
      `mirrored unit tests: ${tree.tested.length} of ${modules.length} source files (${(100 * ratio).toFixed(1)} %)`,
    )
    expect(tree.tested.length + tree.untested.length).toBe(modules.length)
  })
})
