/**
 * The corpus: real compose files written by others (test/fixtures/compose-corpus, each with a SOURCE
 * file naming where it comes from). Every one loads with --check without a crash, without an error
 * (they are valid files and their variables are given), and renders to YAML that parses again.
 * The values are compared with `docker-compose config` in test/integration/render-equivalence.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { renderStack } from '../../../src/compose/render.js'

const corpus = fileURLToPath(new URL('../../fixtures/compose-corpus/', import.meta.url))
const stacks = readdirSync(corpus).filter((name) => existsSync(join(corpus, name, 'case.json')))

interface CorpusCase {
  files: string[]
  env?: Record<string, string>
}

function caseOf(stack: string): CorpusCase {
  return JSON.parse(readFileSync(join(corpus, stack, 'case.json'), 'utf8')) as CorpusCase
}

describe('the compose corpus', () => {
  it('holds at least 40 real compose projects, each naming its source', () => {
    expect(stacks.length).toBeGreaterThanOrEqual(40)
    for (const stack of stacks) {
      expect(readFileSync(join(corpus, stack, 'SOURCE'), 'utf8'), stack).toMatch(
        /^SOURCE: https:\/\/github\.com\/\S+\/blob\/[0-9a-f]{40}\//,
      )
    }
  })

  it.each(stacks)('%s: --check finds no error', async (stack) => {
    const fixture = caseOf(stack)
    const request = { cwd: join(corpus, stack), files: fixture.files, environment: { ...fixture.env } }
    const checked = await renderStack({ ...request, mode: 'check' })
    expect(checked.kind).toBe('check')
    if (checked.kind !== 'check') return
    expect(checked.problems.filter((problem) => problem.level === 'error')).toEqual([])
    const rendered = await renderStack({ ...request, mode: 'config' })
    if (rendered.kind !== 'config') throw new Error('expected a config')
    const model = parse(rendered.text) as { services: Record<string, unknown> }
    expect(Object.keys(model.services).length).toBeGreaterThan(0)
    const raw = await renderStack({ ...request, mode: 'config', interpolate: false })
    if (raw.kind !== 'config') throw new Error('expected a config')
    expect(raw.text).not.toContain('NaN')
  })
})
