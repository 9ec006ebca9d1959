// Writes the cases CetusGuard is asked about (cases.json): its documented examples, the RE2 syntax a
// CetusGuard rule file may hold, line-syntax corner cases, and seeded random patterns and paths.
// See README.md beside this file for how the verdicts are recorded.
import { writeFileSync } from 'node:fs'

let seed = 0x15c0ffee
function random() {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = (list) => list[Math.floor(random() * list.length)]
const int = (max) => Math.floor(random() * max)

const pathChars = [
  'a',
  'b',
  'k',
  'K',
  'z',
  '0',
  '9',
  '/',
  '.',
  '-',
  '_',
  ':',
  ' ',
  '%',
  'é',
  'É',
  'ſ',
  '\u212a',
  'λ',
  '🐳',
  '@',
  '[',
  ']',
  '?',
  'A',
  'x',
]
// Each atom with a few strings it (usually) matches, so that random paths often match.
const atoms = [
  ['a', ['a']],
  ['b', ['b']],
  ['k', ['k', 'K', '\u212a']],
  ['/', ['/']],
  [String.raw`\.`, ['.']],
  ['.', ['x', '🐳', 'é']],
  ['-', ['-']],
  ['é', ['é', 'É']],
  ['🐳', ['🐳']],
  [' ', [' ']],
  ['[a-c]', ['b', 'B']],
  ['[^/]', ['x', '/']],
  ['[[:alpha:]]', ['q', 'é']],
  ['[[:^digit:]]', ['q', '5']],
  ['[[:word:]]', ['_', 'ſ']],
  ['[[:punct:]]', ['!', '/']],
  ['[[:upper:]]', ['U', 'u']],
  [String.raw`\d`, ['7', '٣']],
  [String.raw`\w`, ['w', 'é']],
  [String.raw`\s`, [' ', '\u00a0']],
  [String.raw`\S`, ['s', ' ']],
  [String.raw`\W`, ['-', 'ſ']],
  [String.raw`\pL`, ['λ', '1']],
  [String.raw`\p{Greek}`, ['λ', 'Λ']],
  [String.raw`\PL`, ['1', 'l']],
  [String.raw`\p{Lu}`, ['Λ', 'λ']],
  [String.raw`\x{1F433}`, ['🐳']],
  [String.raw`\x41`, ['A', 'a']],
  [String.raw`\101`, ['A']],
  [String.raw`\x{212A}`, ['\u212a', 'k']],
  [String.raw`\Q.*\E`, ['.*', 'ab']],
  [String.raw`\Q/a\E`, ['/a']],
  [String.raw`\b`, ['']],
  [String.raw`\B`, ['']],
  [String.raw`\A`, ['']],
  [String.raw`\z`, ['']],
  ['^', ['']],
  ['$', ['']],
  [String.raw`\/`, ['/']],
  [String.raw`\-`, ['-']],
  [String.raw`\:`, [':']],
  [String.raw`\%`, ['%']],
  [String.raw`\@`, ['@']],
  ['[a-]', ['-', 'a']],
  ['[]a]', [']']],
  ['[^]a]', ['b', ']']],
  [String.raw`[\d\-]`, ['-', '4']],
  ['%CONTAINER_ID_OR_NAME%', ['web', 'x', 'ab12']],
  ['%NETWORK_ID_OR_NAME%', ['my net', 'n']],
  ['%HOST%', ['h:1', '[::1]']],
  ['%API_PREFIX%', ['/v1.41', '']],
  ['%IMAGE_REFERENCE%', ['a/b:1', 'A']],
  ['%_OBJECT_NAME%', ['ab', 'a']],
  ['a{,2}', ['a{,2}', 'aa']],
  ['a{01}', ['a{01}', 'a']],
  ['{', ['{']],
  ['}', ['}']],
  [']', [']']],
]
const quantifiers = [
  ['', 1, 1],
  ['', 1, 1],
  ['', 1, 1],
  ['', 1, 1],
  ['*', 0, 3],
  ['+', 1, 3],
  ['?', 0, 1],
  ['{1,3}', 1, 3],
  ['{2}', 2, 2],
  ['{0,}', 0, 3],
  ['*?', 0, 2],
  ['+?', 1, 2],
  ['??', 0, 1],
  ['{2,}?', 2, 3],
  ['**', 0, 2],
  ['{3,1}', 1, 1],
]
const groupOpeners = [
  '(',
  '(',
  '(?:',
  '(?:',
  '(?P<n>',
  '(?i:',
  '(?s:',
  '(?U:',
  '(?-i:',
  '(?is:',
  '(?m:',
  '(?x:',
  '(?<=',
]

function expression(depth) {
  let text = ''
  let sample = ''
  const length = 1 + int(4)
  for (let i = 0; i < length; i++) {
    let atomText
    let atomSample
    if (depth < 2 && random() < 0.25) {
      if (random() < 0.15) {
        atomText = '(?i)'
        atomSample = ''
      } else {
        const inner = expression(depth + 1)
        const other = random() < 0.4 ? expression(depth + 1) : undefined
        atomText = `${pick(groupOpeners)}${inner.text}${other ? '|' + other.text : ''})`
        atomSample = other && random() < 0.5 ? other.sample : inner.sample
      }
    } else {
      const [pattern, samples] = pick(atoms)
      atomText = pattern
      atomSample = pick(samples)
    }
    const [quantifier, min, max] = pick(quantifiers)
    text += atomText + quantifier
    sample += atomSample.repeat(min + int(max - min + 1))
  }
  return { text, sample }
}

function randomPath() {
  let path = random() < 0.7 ? '/' : ''
  const length = int(7)
  for (let i = 0; i < length; i++) path += pick(pathChars)
  return path
}

const cases = []
const add = (rules, paths) => cases.push({ rules, requests: paths.map((path) => ['GET', path]) })

// CetusGuard's README examples (SOURCE: hectorm/cetusguard README.md, "Filter rules").
const readme = `! Ping
GET,HEAD %API_PREFIX_PING%
GET %API_PREFIX_SYSTEM%/df
GET %API_PREFIX_CONTAINERS%/%CONTAINER_ID_OR_NAME%/json
POST %API_PREFIX_CONTAINERS%/create(\\?.*)?
POST %API_PREFIX_NETWORKS%/%NETWORK_ID_OR_NAME%/connect(\\?.*)?
DELETE %API_PREFIX_IMAGES%/%IMAGE_ID_OR_REFERENCE%(\\?.*)?
GET %API_PREFIX_IMAGES%/%IMAGE_ID_OR_REFERENCE%/json`
cases.push({
  rules: readme,
  requests: [
    ['GET', '/_ping'],
    ['HEAD', '/v1.41/_ping'],
    ['GET', '/v1.41/system/df'],
    ['GET', '/v1.41/containers/x/json'],
    ['GET', '/v1.41/containers/xy/json'],
    ['GET', '/v1.41/containers/my net/json'],
    ['POST', '/v1.41/containers/create'],
    ['POST', '/v1.41/containers/create?name=x'],
    ['POST', '/v1.41/networks/my net/connect'],
    ['POST', '/v1.41/networks/a/b/connect'],
    ['DELETE', '/v1.41/images/busybox:latest'],
    ['DELETE', '/v1.41/images/localhost:5000/team/app:1'],
    ['GET', '/v1.41/images/sha256:abc/json'],
    ['GET', '/v1.41/images/[::1]:5000/app/json'],
    ['POST', '/v1.41/containers/x/start'],
  ],
})

// The RE2 syntax the issue names, each with the paths that tell its meaning apart.
const syntax = [
  [String.raw`/\x{1F433}`, ['/🐳', '/x', '/\u{1F433}\u{1F433}']],
  [String.raw`/(?P<id>[0-9a-f]+)/json`, ['/abc/json', '/xyz/json']],
  [String.raw`\A/a\z`, ['/a', '/a/']],
  [String.raw`/[[:alpha:]]+`, ['/abc', '/ab1', '/é']],
  [String.raw`/[[:^alpha:]]+`, ['/123', '/a']],
  ['(?i)/CONTAINERS/json', ['/containers/json', '/Containers/JSON', '/containers/json/']],
  ['/(?i:k)', ['/k', '/K', '/\u212a']],
  ['/(?i)ſ', ['/s', '/S', '/ſ']],
  [String.raw`/\Qa.b\E`, ['/a.b', '/axb']],
  ['/(?s:.)', ['/\n', '/a']],
  ['/.', ['/🐳', '/é', '/']],
  ['/(?U)a+', ['/aaa']],
  [String.raw`/\pL+`, ['/λé', '/1']],
  [String.raw`/\p{Greek}`, ['/λ', '/l']],
  [String.raw`/\101`, ['/A', '/a']],
  [String.raw`/a{,2}`, ['/a{,2}', '/aa']],
  [String.raw`/a\b`, ['/a', '/ab']],
  [String.raw`/\C`, ['/a']],
  [String.raw`/(?<=a)b`, ['/ab']],
  [String.raw`/\Z`, ['/']],
  ['/a**', ['/a']],
  ['/(?x) a', ['/a']],
  [String.raw`/\8`, ['/8']],
  ['/a{1001}', ['/a']],
  ['/(a{100}){100}', ['/a']],
  ['/[z-a]', ['/a']],
]
for (const [pattern, paths] of syntax) add(`GET ${pattern}`, paths)

// Line syntax.
const lines = [
  ['GET\t/a', ['/a']],
  ['  GET,HEAD  /a  ', ['/a']],
  ['GET /a\u00a0', ['/a', '/a\u00a0']],
  ['get /a', ['/a']],
  ['GET /a\r\nGET /b', ['/a', '/b']],
  ['! only a comment', ['/a']],
  ['GET /a\u000b', ['/a', '/a\u000b']],
  ['GET /%2e', ['/%2e', '/.']],
  ['GET /%UNKNOWN%', ['/%UNKNOWN%']],
]
for (const [rules, paths] of lines) add(rules, paths)

// Seeded random patterns: no top-level "|" (vault anchors the whole pattern on purpose), no " #".
for (let i = 0; i < 800; i++) {
  const { text, sample } = expression(0)
  const mutated = sample.length > 0 ? sample.slice(0, -1) + pick(pathChars) : pick(pathChars)
  add(`GET /${text}`, ['/' + sample, '/' + expression(0).sample, '/' + mutated, randomPath(), randomPath()])
}

writeFileSync(new URL('./cases.json', import.meta.url), JSON.stringify({ cases }, null, 0) + '\n')
console.log(`${cases.length} cases`)
