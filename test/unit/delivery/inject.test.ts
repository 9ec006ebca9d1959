import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NotConfiguredError, UsageError } from '../../../src/errors.js'
import { injectTemplate, renderTemplate } from '../../../src/delivery/inject.js'

const values: Record<string, string> = { DB_PASSWORD: 'pw-CANARY-42', EMPTY: '' }
const lookup = (name: string) => values[name]

describe('renderTemplate (compose syntax)', () => {
  it.each([
    ['a braced reference', 'password=${DB_PASSWORD}', 'password=pw-CANARY-42'],
    ['a plain reference', 'p=$DB_PASSWORD;', 'p=pw-CANARY-42;'],
    ['$$ is a literal dollar', 'cost=$$5 ${DB_PASSWORD}', 'cost=$5 pw-CANARY-42'],
    [':- default for unset', 'port=${PORT:-5432}', 'port=5432'],
    [':- default for empty', 'x=${EMPTY:-fallback}', 'x=fallback'],
    ['- keeps an empty value', 'x=${EMPTY-fallback}', 'x='],
    [':+ alternate when set', 'tls=${DB_PASSWORD:+on}', 'tls=on'],
    ['several lines', 'a=${DB_PASSWORD}\nb=${PORT:-1}\n', 'a=pw-CANARY-42\nb=1\n'],
  ])('%s', (_what, template, expected) => {
    const rendering = renderTemplate(template, 'app.tpl', lookup)
    expect(rendering.text).toBe(expected)
    expect(rendering.problems).toEqual([])
  })

  it("warns once per line about an unset variable, with compose's message and the line", () => {
    const rendering = renderTemplate('ok\nx=${MISSING} ${MISSING}', 'app.tpl', lookup)
    expect(rendering.text).toBe('ok\nx= ')
    expect(rendering.problems).toEqual([
      {
        level: 'warning',
        line: 2,
        variable: 'MISSING',
        message: 'app.tpl:2: The "MISSING" variable is not set. Defaulting to a blank string.',
      },
    ])
  })

  it('reports every error at once, each at its line, never a value', () => {
    const rendering = renderTemplate(
      'a=${DB_PASSWORD}\nb=${NEEDED:?set NEEDED}\nc=${BROKEN\nd=${DB_PASSWORD:?x}',
      't',
      lookup,
    )
    expect(rendering.problems.map((problem) => [problem.level, problem.line, problem.message])).toEqual([
      ['error', 2, 't:2: required variable NEEDED is missing a value: set NEEDED'],
      ['error', 3, 't:3: Invalid template: "${BROKEN"'],
    ])
    for (const problem of rendering.problems) expect(problem.message).not.toContain('pw-CANARY-42')
  })
})

describe('injectTemplate', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vault-inject-unit-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const inject = (template: string, extra: { check?: boolean; hostEnv?: NodeJS.ProcessEnv } = {}) => {
    writeFileSync(join(dir, 'in.tpl'), template)
    return injectTemplate({
      templatePath: join(dir, 'in.tpl'),
      outputPath: join(dir, 'out.conf'),
      check: extra.check ?? false,
      secrets: values,
      hostEnv: extra.hostEnv ?? {},
    })
  }

  it('writes the file with mode 600; the vault wins over the host environment', async () => {
    const { result } = await inject('p=${DB_PASSWORD} h=${HOST_ONLY}\n', {
      hostEnv: { DB_PASSWORD: 'from-host', HOST_ONLY: 'host' },
    })
    expect(result).toMatchObject({ written: true, variables: 2, problems: [] })
    expect(readFileSync(join(dir, 'out.conf'), 'utf8')).toBe('p=pw-CANARY-42 h=host\n')
    expect(statSync(join(dir, 'out.conf')).mode & 0o777).toBe(0o600)
  })

  it.each([
    ['a missing required variable (exit 3)', 'x=${NEEDED:?}', NotConfiguredError],
    ['a malformed reference (exit 2)', 'x=${', UsageError],
  ])('refuses %s and leaves the previous file alone', async (_what, template, type) => {
    writeFileSync(join(dir, 'out.conf'), 'previous')
    await expect(inject(template)).rejects.toThrow(type)
    expect(readFileSync(join(dir, 'out.conf'), 'utf8')).toBe('previous')
  })

  it('--check lists problems and writes nothing', async () => {
    const { result } = await inject('x=${NEEDED:?}\ny=$UNSET', { check: true })
    expect(result.written).toBe(false)
    expect(result.problems.map((problem) => problem.level)).toEqual(['error', 'warning'])
    expect(() => statSync(join(dir, 'out.conf'))).toThrow()
  })
})
