import { performance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import {
  dependentTemplates,
  maxResolvedLength,
  parseTemplate,
  resolvedValues,
  resolveTemplates,
  templateReferences,
  TemplateError,
  TemplateSyntaxError,
} from '../../../src/client/resolve-templates.js'
import { thrown } from '../../helpers/thrown.js'

const plain = (name: string, value: string) => ({ name, value })
const template = (name: string, value: string) => ({ name, value, template: true })
const values = (secrets: { name: string; value: string }[]) =>
  Object.fromEntries(secrets.map((secret) => [secret.name, secret.value]))

describe('resolveTemplates', () => {
  it('replaces each ${NAME} with the value of that secret, keeping other fields', () => {
    const out = resolveTemplates([
      { ...plain('POSTGRES_PASSWORD', 'pw-1'), version: 3 },
      { ...template('DATABASE_URL', 'postgresql://app:${POSTGRES_PASSWORD}@db:5432/app'), version: 1 },
    ])
    expect(out).toEqual([
      { name: 'POSTGRES_PASSWORD', value: 'pw-1', version: 3 },
      { name: 'DATABASE_URL', value: 'postgresql://app:pw-1@db:5432/app', version: 1, template: true },
    ])
  })

  it.each([
    ['$${A}', '${A}'],
    ['$$${A}', '$${A}'],
    ['$A ${A}$', '$A x$'],
    ['cost: $5, $', 'cost: $5, $'],
    ['$$', '$$'],
    ['${A}${A}', 'xx'],
    ['', ''],
  ])('%j resolves to %j', (text, expected) => {
    expect(values(resolveTemplates([plain('A', 'x'), template('T', text)])).T).toBe(expected)
  })

  it('leaves a plain value that holds ${...} as it is', () => {
    expect(resolveTemplates([plain('A', 'x'), plain('P', 'a ${A} b')])[1]!.value).toBe('a ${A} b')
  })

  it('does not resolve a value it inserted again (a referenced value holding ${B} stays literal)', () => {
    const out = values(resolveTemplates([plain('A', '${B}'), plain('B', 'no'), template('T', '[${A}]')]))
    expect(out.T).toBe('[${B}]')
  })

  it('resolves templates that reference templates', () => {
    const out = values(resolveTemplates([template('C', '${B}/c'), template('B', '${A}/b'), plain('A', 'a')]))
    expect(out).toEqual({ A: 'a', B: 'a/b', C: 'a/b/c' })
  })

  it.each([
    [[template('A', '${A}')], 'A -> A'],
    [[template('A', 'x${B}'), template('B', '${A}')], 'A -> B -> A'],
    [
      [plain('P', 'p'), template('A', '${P}${B}'), template('B', '${C}'), template('C', '${B}')],
      'B -> C -> B',
    ],
  ])('names a cycle: %#', (secrets, chain) => {
    const error = thrown(() => resolveTemplates(secrets))
    expect(error).toBeInstanceOf(TemplateError)
    expect((error as TemplateError).exitCode).toBe(8)
    expect((error as Error).message).toContain(`cycle: ${chain}`)
  })

  it('names the chain to a missing reference, and no value', () => {
    const error = thrown(() =>
      resolveTemplates([plain('P', 'canary-pw'), template('A', '${P}${B}'), template('B', '${MISSING}')]),
    ) as TemplateError
    expect(error).toBeInstanceOf(TemplateError)
    expect(error.message).toBe('A -> B -> MISSING: MISSING is not a secret of this environment')
    expect(JSON.stringify({ m: error.message, h: error.hint })).not.toContain('canary')
  })

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'treats %s as a name like any other',
    (name) => {
      expect(() => resolveTemplates([template('T', `\${${name}}`)])).toThrow(
        `T -> ${name}: ${name} is not a secret of this environment`,
      )
      expect(values(resolveTemplates([plain(name, 'v'), template('T', `<\${${name}}>`)])).T).toBe('<v>')
    },
  )

  it.each(['${', '${}', '${A', '${A B}', '${1A}', '${A:-x}', '${A-}', '${$}', 'x${A}${'])(
    'refuses the malformed template %j (exit 2)',
    (text) => {
      const error = thrown(() => resolveTemplates([plain('A', 'x'), template('T', text)]))
      expect(error).toBeInstanceOf(TemplateSyntaxError)
      expect((error as TemplateSyntaxError).exitCode).toBe(2)
    },
  )

  it('refuses a template that doubles past the size limit instead of filling memory', () => {
    const secrets = [plain('S0', 'x'.repeat(1024))]
    for (let level = 1; level <= 40; level++)
      secrets.push(template(`S${level}`, `\${S${level - 1}}\${S${level - 1}}`))
    expect(() => resolveTemplates(secrets)).toThrow(`resolves to more than ${maxResolvedLength} characters`)
  })

  it('resolves a chain ten thousand deep without deep recursion', () => {
    const secrets = [plain('S0', 'x')]
    for (let level = 1; level <= 10_000; level++) secrets.push(template(`S${level}`, `\${S${level - 1}}`))
    expect(resolveTemplates(secrets.reverse())[0]!.value).toBe('x')
  })

  it('resolves 10,000 templates over 1,000 plain secrets in well under a second', () => {
    const secrets: { name: string; value: string; template?: boolean }[] = []
    for (let index = 0; index < 1000; index++) secrets.push(plain(`P${index}`, `value-${index}`))
    for (let index = 0; index < 10_000; index++)
      secrets.push(template(`T${index}`, `u://a:\${P${index % 1000}}@h/\${P${(index * 7) % 1000}}$\${x}`))
    const started = performance.now()
    const out = resolveTemplates(secrets)
    const elapsed = performance.now() - started
    expect(out[1000 + 1234]!.value).toBe('u://a:value-234@h/value-638${x}')
    // generous bound: measured 65-240 ms on a loaded 2-core machine; a quadratic resolver takes far longer
    expect(elapsed).toBeLessThan(2000)
  })
})

describe('templateReferences', () => {
  it('lists each referenced name once, in order, and not the escaped ones', () => {
    expect(templateReferences('T', '${B} $${C} ${A} ${B}')).toEqual(['B', 'A'])
    expect(parseTemplate('T', 'a$${b')).toEqual([{ text: 'a${b' }])
  })
})

describe('dependentTemplates and resolvedValues (what rotate recreates and with which values)', () => {
  const stored = [
    plain('POSTGRES_PASSWORD', 'old'),
    template('DATABASE_URL', 'pg://app:${POSTGRES_PASSWORD}@db/app'),
    template('WORKER_DSN', '${DATABASE_URL}?pool=5'),
    template('OTHER', '${UNRELATED}'),
    plain('UNRELATED', 'u'),
    template('BROKEN', '${'),
  ]

  it('lists the templates naming the secret, directly or through another template', () => {
    expect(dependentTemplates(stored, 'POSTGRES_PASSWORD')).toEqual(['DATABASE_URL', 'WORKER_DSN'])
    expect(dependentTemplates(stored, 'UNRELATED')).toEqual(['OTHER'])
    expect(dependentTemplates(stored, '__proto__')).toEqual([])
  })

  it('resolves with the new value of the rotated secret', () => {
    const fine = stored.filter((secret) => secret.name !== 'BROKEN')
    expect(resolvedValues(fine, { POSTGRES_PASSWORD: 'new' })).toMatchObject({
      POSTGRES_PASSWORD: 'new',
      DATABASE_URL: 'pg://app:new@db/app',
      WORKER_DSN: 'pg://app:new@db/app?pool=5',
    })
  })
})
