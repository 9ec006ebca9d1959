import { describe, expect, it } from 'vitest'
import { checkProject } from '../../../src/compose/check.js'
import { loadComposeProject } from '../../../src/compose/load.js'
import { writeStack } from '../../helpers/compose-stack.js'

const compose = [
  'services:',
  '  web:',
  '    image: "web:${TAG}"',
  '    environment:',
  '      DB_PASSWORD: ${DB_PASSWORD:?set it in the vault}',
  '      API_KEY: ${API_KEY:?}',
  '      OPTIONAL: ${OPTIONAL:-x}',
  '  worker:',
  '    image: worker',
  '    environment:',
  '      DB_PASSWORD: ${DB_PASSWORD:?set it in the vault}',
  '      BROKEN: ${BROKEN:=x}',
].join('\n')

function check(secrets: Record<string, string>, environment: Record<string, string> = {}) {
  const cwd = writeStack({ 'compose.yaml': compose })
  return checkProject(loadComposeProject({ cwd, environment, secrets, collectProblems: true }))
}

describe('checkProject', () => {
  it('reports every problem at once, errors first, with file, line and service', () => {
    const result = check({ API_KEY: '', UNUSED_SECRET: 'x', HAS_DOLLAR: 'a$b' })
    expect(result.ok).toBe(false)
    expect(result.errors).toBe(4)
    const summary = result.problems.map((problem) => [
      problem.level,
      problem.code,
      problem.variable,
      problem.service,
      problem.line,
    ])
    expect(summary).toEqual([
      ['error', 'required_variable', 'DB_PASSWORD', 'web', 5],
      ['error', 'required_variable', 'API_KEY', 'web', 6],
      ['error', 'required_variable', 'DB_PASSWORD', 'worker', 11],
      ['error', 'invalid_template', undefined, 'worker', 12],
      ['warning', 'dollar_in_value', 'HAS_DOLLAR', undefined, undefined],
      ['warning', 'unset_variable', 'TAG', 'web', 3],
      ['info', 'unused_secret', 'HAS_DOLLAR', undefined, undefined],
      ['info', 'copy_not_checked', 'UNUSED_SECRET', undefined, undefined],
      ['info', 'unused_secret', 'UNUSED_SECRET', undefined, undefined],
    ])
    expect(result.problems[0]!.message).toMatch(
      /compose\.yaml:5: error while interpolating services\.web\.environment\.DB_PASSWORD: required variable DB_PASSWORD is missing a value: set it in the vault$/,
    )
    expect(result.problems[1]!.message).toMatch(/required variable API_KEY is missing a value$/)
  })

  it('is ok when every required variable has a value', () => {
    const cwd = writeStack({ 'compose.yaml': compose.replace('${BROKEN:=x}', 'fine') })
    const result = checkProject(
      loadComposeProject({
        cwd,
        environment: { TAG: '1' },
        secrets: { DB_PASSWORD: 'password-long-enough', API_KEY: 'key-long-enough' },
        collectProblems: true,
      }),
    )
    expect(result).toMatchObject({ ok: true, errors: 0, warnings: 0, infos: 0, problems: [] })
  })

  it('never puts a secret value into a problem', () => {
    const result = check({ API_KEY: '', UNUSED: 'canary-value-1', DOLLAR: 'canary$value' })
    expect(JSON.stringify(result)).not.toMatch(/canary/)
  })

  it('flags a referenced host variable holding $ but not a literal $$', () => {
    const cwd = writeStack({ 'compose.yaml': 'services:\n  a:\n    image: "x${A}${B}"\n' })
    const result = checkProject(
      loadComposeProject({ cwd, environment: { A: 'p$word', B: 'cost $5' }, collectProblems: true }),
    )
    expect(result.problems.map((problem) => problem.variable)).toEqual(['A'])
  })
})
