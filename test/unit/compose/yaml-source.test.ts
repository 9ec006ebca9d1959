/**
 * Reading one compose file (src/compose/yaml-source.ts). Generated documents are written by the test
 * itself, so it knows each value and the line of every key and list item; the `yaml` package's own
 * `parse` is a second oracle for the values. Both of the module's readers (the fast one, through
 * parseComposeYaml, and the full one) must give them. Malformed and hostile input (a top level that
 * is not a mapping, an error on a known line, an alias bomb, nesting past the limit) fails with
 * ComposeInputError naming the file and line.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ComposeInputError } from '../../../src/compose/errors.js'
import { lineOf, parseComposeYaml, parseWithFullParser } from '../../../src/compose/yaml-source.js'
import { thrown } from '../../helpers/thrown.js'

type Tree = { [key: string]: string | string[] | Tree }

const keys = fc.constantFrom('services', 'web', 'image', 'environment', 'ports', 'x-extra', 'b_c', 'labels')
const scalar = fc.integer({ min: 0, max: 99999 }).map((n) => `v${n}`)
const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.dictionary(
    keys,
    fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(scalar, { minLength: 1, maxLength: 3 }),
      tie('tree'),
    ),
    { maxKeys: 4 },
  ),
})).tree

/** The YAML text of `value` and the 1-based line of every key and list item, by path. */
function emit(value: Tree): { text: string; lines: Map<string, number> } {
  const out: string[] = []
  const lines = new Map<string, number>()
  const walk = (node: Tree, indent: string, path: string) => {
    for (const [key, child] of Object.entries(node)) {
      const at = path === '' ? key : `${path}.${key}`
      if (typeof child === 'string') out.push(`${indent}${key}: ${child}`)
      else if (!Array.isArray(child) && Object.keys(child).length === 0) out.push(`${indent}${key}: {}`)
      else out.push(`${indent}${key}:`)
      lines.set(at, out.length)
      if (Array.isArray(child))
        child.forEach((item, index) => {
          out.push(`${indent}  - ${item}`)
          lines.set(`${at}.${index}`, out.length)
        })
      else if (typeof child !== 'string') walk(child, `${indent}  `, at)
    }
  }
  walk(value, '', '')
  return { text: `${out.join('\n')}\n`, lines }
}

function located(action: () => unknown): ComposeInputError {
  const error = thrown(action)
  expect(error).toBeInstanceOf(ComposeInputError)
  return error as ComposeInputError
}

describe('parseComposeYaml and parseWithFullParser', () => {
  it('give the written values and the line of every key and list item, in both readers', () => {
    fc.assert(
      fc.property(
        tree.filter((value) => Object.keys(value).length > 0),
        (value) => {
          const { text, lines } = emit(value)
          expect(parse(text)).toEqual(value)
          for (const source of [parseComposeYaml(text, 'c.yaml'), parseWithFullParser(text, 'c.yaml')]) {
            expect(source.file).toBe('c.yaml')
            expect(source.value).toEqual(value)
            for (const [path, line] of lines) expect([path, source.lines.get(path)]).toEqual([path, line])
          }
        },
      ),
      { numRuns: 150 },
    )
  })

  it('resolves anchors, aliases and << merge keys as the yaml package does', () => {
    const text = [
      'x-base: &base',
      '  image: busybox',
      '  environment: {A: "1"}',
      'services:',
      '  web:',
      '    <<: *base',
      '    command: [sh, -c, "echo hi"]',
      '  db: *base',
      '',
    ].join('\n')
    const expected = parse(text, { merge: true }) as object
    expect(parseComposeYaml(text, 'c.yaml').value).toEqual(expected)
    expect(parseWithFullParser(text, 'c.yaml').value).toEqual(expected)
    expect((expected as { services: { web: { image: string } } }).services.web.image).toBe('busybox')
  })

  it('reads 0440 as the octal 288, as go-yaml (compose-go) does', () => {
    const text = 'secrets:\n  s:\n    mode: 0440\n'
    expect(parseComposeYaml(text, 'c.yaml').value).toEqual({ secrets: { s: { mode: 288 } } })
    expect(parseWithFullParser(text, 'c.yaml').value).toEqual({ secrets: { s: { mode: 288 } } })
  })

  it('reads an empty file as an empty mapping', () => {
    expect(parseComposeYaml('', 'c.yaml').value).toEqual({})
    expect(parseComposeYaml('# only a comment\n', 'c.yaml').value).toEqual({})
  })

  it('refuses a top level that is not a mapping, at line 1, in both readers', () => {
    for (const text of ['- a\n- b\n', 'just text\n', '[1, 2]\n', '42\n']) {
      for (const read of [parseComposeYaml, parseWithFullParser]) {
        const error = located(() => read(text, 'c.yaml'))
        expect([text, error.file, error.line]).toEqual([text, 'c.yaml', 1])
      }
    }
  })

  it('names the line of malformed YAML', () => {
    const text = 'services:\n  web:\n    image: busybox\n    command: [unclosed\n  db: {}\n'
    const error = located(() => parseComposeYaml(text, 'bad.yaml'))
    expect(error.file).toBe('bad.yaml')
    expect(error.line).toBeGreaterThanOrEqual(4)
    expect(error.message).toContain('bad.yaml')
    const tab = located(() => parseComposeYaml('services:\n  web:\n\timage: x\n', 'tab.yaml'))
    expect(tab.line).toBe(3)
  })

  it('refuses an alias bomb and nesting far past the limit, with the file named', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
    for (let i = 0; i < 9; i++) {
      const name = String.fromCharCode(98 + i)
      const prev = String.fromCharCode(97 + i)
      bomb.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`)
    }
    expect(located(() => parseComposeYaml(`${bomb.join('\n')}\n`, 'bomb.yaml')).file).toBe('bomb.yaml')
    const deep = `a: ${'['.repeat(5000)}${']'.repeat(5000)}\n`
    expect(located(() => parseComposeYaml(deep, 'deep.yaml')).file).toBe('deep.yaml')
    let block = ''
    for (let depth = 0; depth < 3000; depth++) block += `${' '.repeat(depth)}k:\n`
    expect(located(() => parseComposeYaml(block, 'block.yaml')).file).toBe('block.yaml')
  })
})

describe('lineOf', () => {
  it('gives the line of a path or of its nearest ancestor that has one', () => {
    const lines = new Map([
      ['services', 1],
      ['services.web', 2],
    ])
    expect(lineOf(lines, 'services.web')).toBe(2)
    expect(lineOf(lines, 'services.web.environment.A')).toBe(2)
    expect(lineOf(lines, 'services.db')).toBe(1)
    expect(lineOf(lines, 'volumes.data')).toBeUndefined()
  })
})
