import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSimpleYaml, UnsupportedYaml } from '../../../src/compose/fast-yaml.js'
import { parseComposeYaml, parseWithFullParser } from '../../../src/compose/yaml-source.js'
import { composeCorpus, composeFixtures, yamlFiles } from '../../helpers/yaml-fixtures.js'

const supported = [
  'a: 1\nb: two\nc: "three"\nd: \'four\'\n',
  'services:\n  web:\n    image: nginx:1.27\n    ports:\n      - "8080:80"\n      - 443:443\n',
  'list:\n- a\n- b\nnext: x\n',
  'seq:\n  - name: a\n    value: 1\n  - name: b\n    nested:\n      - x\n      - - y\n        - z\n',
  'flow: [a, "b, c", \'d\', 1, true, null, ~]\nmap: {a: 1, b: "x y"}\nempty: {}\nnone: []\n',
  'nums: [0, -1, +2, 3.5, .5, 1e3, 0x1F, 0o17, .inf, -.inf, 007, 1_000]\n',
  'bools: [true, True, TRUE, false, yes, no, on, off, Null, NULL, ""]\n',
  'key: value # comment\n# full line comment\nother: "a # not a comment" # comment\n',
  "escapes: \"tab\\tnew\\nquote\\\" backslash\\\\ unicode \\u00e9 hex \\x41\"\nsingle: 'it''s'\n",
  '---\ndollar: $$HOME ${VAR:-x} ${A:?b c}\nurl: http://example.test:8080/a?b=c#frag\n',
  '"quoted key": 1\n\'single key\': 2\n80: port\n1.5: float key\ntrue: bool key\n',
  'empty:\nafter: 1\n',
  'a:\n  b:\n    c: 1\n  d: 2\ne: 3\n',
  'label: Host(`auth.example.test`)\n',
  'cmd: ["sh", "-c", "echo $$HOME"]\n',
  '\uFEFFbom: first\r\ncrlf: yes\r\n',
  'spaced : key\ntrailing:   \n  nested: 1\n',
  'depends_on:\n  -  mongo  \n  - "quoted"  \nimage: nginx \t\n',
  'a: &x 1\nb: *x\nc: &y\n  k: v\nd: *y # alias\n',
  'base: &b {a: 1, b: 2}\nc:\n  b: 3\n  <<: *b\n  d: 4\n',
  'one: &one {a: 1, b: 1}\ntwo: &two {b: 2, c: 2}\nboth:\n  <<: [*one, *two]\n  c: 3\n',
  'x-env: &env\n  - A=1\n  - B=2\nservices:\n  a:\n    environment: *env\n  b:\n    environment: &own\n      - C=3\n    labels: *own\n',
  'seq:\n  - &item\n    name: a\n  - *item\n  - &s scalar\n  - *s\nempty: &e\nagain: *e\n',
  'a: &x 1\nx: &x 2\nb: *x\n',
  'lit: |\n  one\n\n  # not a comment\n    deeper\nstrip: |-\n  a\n\n\nkeep: |+\n  a\n\n\nnext: 1\n',
  'fold: >\n  one\n  two\n\n  three\nfoldstrip: >-\n  a\n  b\nseq:\n  - |\n    x\n  - >-\n    y\n    z\nempty: |\nlast: |+\n  end\n',
  'cmd: >\n\n  leading\n  blank\n',
  'command:\n  ["postgres"] # on the next line\nnext: {a: 1}\nseq:\n  -\n    [a, b]\n',
  'test: [\n    "CMD-SHELL",\n    # a comment between entries\n    "wget -q || exit 1", # and after one\n  ]\nnext: 1\n',
  "hc:\n  test: [\n      a,\n      'b c'\n  ]\n  interval: 10s\n",
  'map: {\n  a: 1,\n  "b": x y,\n}\nlist:\n  - [\n    1,\n    2,\n    ]\n  - &f [\n      z\n    ]\n  - *f\n',
  'a: [\n  1, 2,\n  3\n]\n',
]

const unsupported = [
  ['an alias in a flow collection', 'a: &x 1\nb: [*x]\n'],
  ['an anchor on a sequence item holding a mapping', 'a:\n  - &x k: v\n'],
  ['an unknown alias', 'a: *nope\n'],
  ['a merge of a scalar', 'a: &x 1\nb:\n  <<: *x\n'],
  ['two merge keys', 'a: &x {k: 1}\nb:\n  <<: *x\n  <<: *x\n'],
  ['a block scalar with an indentation indicator', 'a: |2\n   line\n'],
  ['a folded scalar with more-indented lines', 'a: >\n  line\n    more\n  end\n'],
  ['a multi-line plain scalar', 'a: one\n  two\n'],
  ['a multi-line quoted scalar', 'a: "one\n  two"\n'],
  ['a tag', 'a: !!str 1\n'],
  ['a duplicate key', 'a: 1\na: 2\n'],
  ['a nested flow collection', 'a: [[1], 2]\n'],
  ['a multi-line flow collection', 'a: [1,\n  2]\n'],
  ['a plain scalar folded over lines of a flow collection', 'a: [\n  one\n  two\n]\n'],
  ['a quoted scalar over lines of a flow collection', 'a: [\n  "one\n  two"\n]\n'],
  ['a flow collection never closed', 'a: [\n  one,\nb: 1\n'],
  ['a nested flow collection over lines', 'a: [\n  [1],\n]\n'],
  ['a block below a one-line flow collection', 'a:\n  [1]\n  b: 2\n'],
  ['a second document', 'a: 1\n---\nb: 2\n'],
  ['tab indentation', 'a:\n\tb: 1\n'],
  ['a complex key', '? a\n: b\n'],
  ['a plain value with ": "', 'a: b: c\n'],
  ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
]

describe('parseSimpleYaml', () => {
  it.each(supported)('reads %j exactly like the full parser', (text) => {
    expect(parseSimpleYaml(text).value).toEqual(parseWithFullParser(text, 'case.yaml').value)
  })

  it('reads YAML 1.1 octals (0440) as compose-go does, in both readers', () => {
    const text = 'modes: [0440, 0o440, -017, 08, 0]\n'
    expect(parseSimpleYaml(text).value).toEqual({ modes: [288, 288, -15, 8, 0] })
    expect(parseWithFullParser(text, 'f.yaml').value).toEqual({ modes: [288, 288, -15, 8, 0] })
  })

  it.each(unsupported)('hands %s to the full parser', (_, text) => {
    expect(() => parseSimpleYaml(text)).toThrow(UnsupportedYaml)
  })

  it('records the same lines as the full parser', () => {
    const text = supported[3]!
    const fast = parseSimpleYaml(text).lines
    const full = parseWithFullParser(text, 'x.yaml').lines
    for (const [path, line] of fast) expect([path, line]).toEqual([path, full.get(path)])
    expect(fast.size).toBeGreaterThan(5)
  })

  it('reads every fixture compose file like the full parser', () => {
    const files = yamlFiles(composeFixtures)
    expect(files.length).toBeGreaterThanOrEqual(12)
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      const fast = parseComposeYaml(text, file)
      const full = parseWithFullParser(text, file)
      expect(fast.value, file).toEqual(full.value)
      expect(
        [...fast.lines].filter(([path]) => full.lines.get(path) !== fast.lines.get(path)),
        file,
      ).toEqual([])
    }
  })

  it('reads anchors and merge keys itself', () => {
    const text = 'x-base: &base\n  image: a\nservices:\n  web:\n    <<: *base\n'
    expect(parseSimpleYaml(text).value).toEqual({
      'x-base': { image: 'a' },
      services: { web: { image: 'a' } },
    })
  })

  it('reads every corpus compose file it accepts exactly like the full parser (values and lines)', () => {
    const files = yamlFiles(composeCorpus)
    let fastRead = 0
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      let fast
      try {
        fast = parseSimpleYaml(text)
      } catch (error) {
        if (error instanceof UnsupportedYaml) continue
        throw error
      }
      fastRead++
      const full = parseWithFullParser(text, file)
      expect(fast.value, file).toEqual(full.value)
      expect(
        [...fast.lines].filter(
          ([path]) => full.lines.has(path) && full.lines.get(path) !== fast.lines.get(path),
        ),
        file,
      ).toEqual([])
    }
    expect(fastRead).toBeGreaterThanOrEqual(40)
  })
})
