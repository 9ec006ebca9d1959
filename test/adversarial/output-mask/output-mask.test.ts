/**
 * Hostile child output against the masker of `vault run` (a trust boundary: terminal output). Each row
 * is one way a value could slip through; the property checked for every chunking of it (every single
 * cut, one byte per chunk, and 200 random chunkings) is: the output never holds a masked value, and
 * it equals masking the whole output at once.
 */
import { describe, expect, it } from 'vitest'
import { maskWhole, OutputMasker } from '../../../src/masking/output-mask.js'

interface Attack {
  attack: string
  values: string[]
  output: string
}

const pem = '-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----'
const attacks: Attack[] = [
  {
    attack: 'the value split at every possible chunk boundary',
    values: ['hunter2-secret'],
    output: 'pw=hunter2-secret;',
  },
  { attack: 'the value written twice back to back', values: ['abcdabcd'], output: 'abcdabcdabcdabcd' },
  {
    attack: "a run of the value's own prefix before it (self-overlap)",
    values: ['aaab-key'],
    output: 'aaaaaaaaaaaab-key',
  },
  {
    attack: 'a value that is a prefix of another',
    values: ['token', 'token-extended'],
    output: 'token-extended token-ext token',
  },
  {
    attack: 'a value inside another value',
    values: ['supersecret', 'persec'],
    output: 'xsupersecretx persecx',
  },
  {
    attack: 'a multi-byte UTF-8 value split inside a character',
    values: ['pässwörd-☃-🔑'],
    output: '>pässwörd-☃-🔑<',
  },
  { attack: 'a multi-line value (a PEM key)', values: [pem], output: `key:\n${pem}\nend` },
  {
    attack: 'regular-expression metacharacters in the value',
    values: ['a.*b+(c)?[d]$'],
    output: 'x a.*b+(c)?[d]$ y',
  },
  { attack: 'a value that ends the stream', values: ['final-value'], output: 'last line: final-value' },
  { attack: 'a value that starts the stream', values: ['first-value'], output: 'first-value then text' },
  { attack: 'a value of exactly the minimum length', values: ['abcd'], output: 'xabcdx' },
  {
    attack: 'NUL and control bytes around the value',
    values: ['ctl-value'],
    output: '\u0000ctl-value\u001b[0m\r\n',
  },
  {
    attack: 'a value sharing 3-byte blocks with ordinary text',
    values: ['the-password'],
    output: 'the the-pass the-password the',
  },
  {
    attack: 'a hundred values, one of them present',
    values: Array.from({ length: 100 }, (_, i) => `value-${i}-xxxxxxxxxxxx`),
    output: 'log value-57-xxxxxxxxxxxx log',
  },
]

function chunked(output: Buffer, values: string[], cuts: number[]): Buffer {
  const masker = new OutputMasker(values)
  const pieces: Buffer[] = []
  let previous = 0
  for (const cut of [...cuts, output.length]) {
    pieces.push(masker.push(output.subarray(previous, cut)))
    previous = cut
  }
  pieces.push(masker.end())
  return Buffer.concat(pieces)
}

function chunkings(length: number): number[][] {
  const all: number[][] = [[], Array.from({ length }, (_, index) => index)]
  for (let cut = 0; cut <= length; cut++) all.push([cut])
  let seed = length * 7919
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  for (let i = 0; i < 200; i++) {
    all.push(
      Array.from({ length: 1 + Math.floor(next() * 6) }, () => Math.floor(next() * (length + 1))).sort(
        (a, b) => a - b,
      ),
    )
  }
  return all
}

describe('output masking under hostile output', () => {
  it.each(attacks)('$attack: no value reaches the output, whatever the chunking', ({ values, output }) => {
    const bytes = Buffer.from(output)
    const whole = maskWhole(bytes, values)
    for (const value of values) expect(whole.includes(Buffer.from(value))).toBe(false)
    for (const cuts of chunkings(bytes.length)) {
      const masked = chunked(bytes, values, cuts)
      expect(masked.equals(whole), `cuts ${JSON.stringify(cuts)}`).toBe(true)
    }
  })
})
