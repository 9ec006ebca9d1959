import { describe, expect, it } from 'vitest'
import {
  holdsReference,
  interpolate,
  InterpolationError,
  scanReferences,
  unsetVariableWarning,
} from '../../../src/compose/interpolate.js'

const variables: Record<string, string> = { SET: 'value', EMPTY: '', FOO: 'foo', B: 'bee', U2: 'u2' }
/** Matches the whole error message, not a substring. */
const exact = (message: string) => new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
const lookup = (name: string) => (Object.hasOwn(variables, name) ? variables[name] : undefined)

describe('interpolate: names and $ handling', () => {
  it.each([
    ['$FOO', 'foo'],
    ['${FOO}', 'foo'],
    ['$FOO-bar', 'foo-bar'],
    ['$FOObar', ''],
    ['x${FOO}y', 'xfooy'],
    ['$$', '$'],
    ['$$FOO', '$FOO'],
    ['$$$FOO', '$foo'],
    ['$${FOO}', '${FOO}'],
    ['$1', '$1'],
    ['$-', '$-'],
    ['a $ b', 'a $ b'],
    ['^x$', '^x$'],
    ['\\$FOO', '\\foo'],
    ['no references', 'no references'],
    ['$_', ''],
    ['$foo', ''],
  ])('%s gives %s', (template, expected) => {
    expect(interpolate(template, lookup)).toBe(expected)
  })

  it('looks names up case-sensitively', () => {
    expect(interpolate('${foo}${FOO}', lookup)).toBe('foo')
  })
})

describe('interpolate: operators (unset / set but empty / set)', () => {
  it.each([
    ['${UNSET:-w}', 'w'],
    ['${EMPTY:-w}', 'w'],
    ['${SET:-w}', 'value'],
    ['${UNSET-w}', 'w'],
    ['${EMPTY-w}', ''],
    ['${SET-w}', 'value'],
    ['${EMPTY?msg}', ''],
    ['${SET?msg}', 'value'],
    ['${SET:?msg}', 'value'],
    ['${UNSET:+w}', ''],
    ['${EMPTY:+w}', ''],
    ['${SET:+w}', 'w'],
    ['${UNSET+w}', ''],
    ['${EMPTY+w}', 'w'],
    ['${SET+w}', 'w'],
  ])('%s gives "%s"', (template, expected) => {
    expect(interpolate(template, lookup)).toBe(expected)
  })

  it.each([
    ['${UNSET:?msg}', 'required variable UNSET is missing a value: msg'],
    ['${EMPTY:?msg}', 'required variable EMPTY is missing a value: msg'],
    ['${UNSET?msg}', 'required variable UNSET is missing a value: msg'],
    ['${UNSET:?}', 'required variable UNSET is missing a value'],
    ['${UNSET?}', 'required variable UNSET is missing a value'],
    ['${UNSET:?need $FOO here}', 'required variable UNSET is missing a value: need foo here'],
  ])('%s throws "%s"', (template, message) => {
    expect(() => interpolate(template, lookup)).toThrow(exact(message))
  })

  it('names the variable of a required error', () => {
    try {
      interpolate('${UNSET:?x}', lookup)
      expect.unreachable()
    } catch (error) {
      expect((error as InterpolationError).variable).toBe('UNSET')
      expect((error as InterpolationError).code).toBe('ERR_REQUIRED_VARIABLE')
    }
  })
})

describe('interpolate: words', () => {
  it.each([
    ['${U-a:-b}', 'a:-b'],
    ['${U:-{"a":1}}', '{"a":1}'],
    ['${UNSET:-${FOO}}', 'foo'],
    ['${UNSET:-${U2:-x}y}', 'u2y'],
    ['${UNSET:-$${FOO}}', '${FOO}'],
    ['${UNSET:-a}b}', 'ab}'],
    ['${SET:+[$B]}', '[bee]'],
    ['${UNSET:-}', ''],
  ])('%s gives %s', (template, expected) => {
    expect(interpolate(template, lookup)).toBe(expected)
  })

  it('evaluates words lazily: an unused required word does not throw', () => {
    expect(interpolate('${SET:-${UNSET:?boom}}', lookup)).toBe('value')
    expect(interpolate('${UNSET:+${UNSET:?boom}}', lookup)).toBe('')
  })

  it('throws for a required word that is used', () => {
    expect(() => interpolate('${UNSET:-${X:?boom}}', lookup)).toThrow(
      'required variable X is missing a value: boom',
    )
  })

  it('never rescans a substituted value', () => {
    const values: Record<string, string> = { A: '${B}', B: 'no', D: '$$' }
    expect(interpolate('$A ${A} $D', (name) => values[name])).toBe('${B} ${B} $$')
  })
})

describe('interpolate: malformed references', () => {
  it.each([
    '${',
    '${}',
    '${ V}',
    '${V }',
    '${V:}',
    '${V:=x}',
    '${#V}',
    '${V/a/b}',
    '${1}',
    '${A.B}',
    '${V',
    '${V:-x',
    'prefix ${V:-${W} suffix',
  ])('%s is Invalid template with the whole input', (template) => {
    expect(() => interpolate(template, lookup)).toThrow(exact(`Invalid template: "${template}"`))
  })

  it('reports the whole input for an error inside a used word', () => {
    expect(() => interpolate('a ${UNSET:-${}} b', lookup)).toThrow('Invalid template: "a ${UNSET:-${}} b"')
  })
})

describe('interpolate: unset warnings', () => {
  it.each([
    ['$UNSET', ['UNSET']],
    ['${UNSET}', ['UNSET']],
    ['${UNSET:-x}', []],
    ['${UNSET-x}', []],
    ['${UNSET:+x}', []],
    ['${EMPTY}', []],
    ['$A$B', ['A']],
  ])('%s warns about %j', (template, expected) => {
    const unset: string[] = []
    interpolate(template, lookup, { onUnset: (name) => unset.push(name) })
    expect(unset).toEqual(expected)
  })

  it('uses compose wording', () => {
    expect(unsetVariableWarning('X')).toBe('The "X" variable is not set. Defaulting to a blank string.')
  })
})

describe('scanReferences', () => {
  it('lists plain, braced and nested references with operators and words', () => {
    expect(scanReferences('$A ${B:-x} ${C:?need ${D}} $$E ${F+alt}')).toEqual([
      { name: 'A', operator: '', word: '', required: false },
      { name: 'B', operator: ':-', word: 'x', required: false },
      { name: 'C', operator: ':?', word: 'need ${D}', required: true },
      { name: 'D', operator: '', word: '', required: false },
      { name: 'F', operator: '+', word: 'alt', required: false },
    ])
  })

  it('throws Invalid template like interpolate', () => {
    expect(() => scanReferences('${A:=x}')).toThrow('Invalid template: "${A:=x}"')
  })
})

describe('holdsReference', () => {
  it.each([
    ['plain', false],
    ['a$b', true],
    ['a${b}', true],
    ['a$$b', false],
    ['price $5', false],
    ['end$', false],
    ['$$$X', true],
  ])('%s -> %s', (text, expected) => {
    expect(holdsReference(text)).toBe(expected)
  })
})
