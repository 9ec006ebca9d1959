/**
 * Scalars of the fast YAML reader: double-quoted escapes and the resolution of plain scalars (null,
 * booleans, integers, floats) the way compose-go's YAML reader does it: the YAML 1.2 core schema,
 * except that `0440` is still an octal integer (YAML 1.1), as in go-yaml. The full parser is given
 * the same rule (`yaml-source.ts`).
 */
import { UnsupportedYaml } from './fast-yaml-errors.js'

const doubleEscapes: Record<string, string> = {
  '\\': '\\',
  '"': '"',
  '/': '/',
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  b: '\b',
  f: '\f',
  e: '\x1b',
  a: '\x07',
  v: '\v',
  ' ': ' ',
}

/** The value of a double-quoted scalar's inner text. */
export function unescapeDouble(inner: string): string {
  if (!inner.includes('\\')) return inner
  return inner.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, (_, escape: string) => {
    if (escape.length > 1) return String.fromCharCode(parseInt(escape.slice(1), 16))
    return doubleEscapes[escape] ?? unsupportedScalar('escape')
  })
}

const intPattern = /^[-+]?[0-9]+$/
/** YAML 1.1's octal integers (`0440`), which compose-go's YAML reader (go-yaml v3/v4) still reads as octal. */
export const legacyOctal = /^[-+]?0[0-7]+$/

/** The value of a YAML 1.1 octal integer (`0440` is 288, `-017` is -15). */
export function parseLegacyOctal(text: string): number {
  const value = parseInt(text.replace(/^[-+]/, ''), 8)
  return text.startsWith('-') ? -value : value
}
const floatPattern = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/

/** A plain scalar's value (YAML 1.2 core schema plus YAML 1.1 octals, as compose-go reads it). */
export function resolvePlain(text: string): unknown {
  switch (text) {
    case '':
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null
    case 'true':
    case 'True':
    case 'TRUE':
      return true
    case 'false':
    case 'False':
    case 'FALSE':
      return false
  }
  const first = text.charCodeAt(0)
  const numeric = (first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46
  if (!numeric) return text
  if (legacyOctal.test(text)) return parseLegacyOctal(text)
  if (intPattern.test(text) || floatPattern.test(text)) {
    const number = Number(text)
    return Number.isSafeInteger(number) || !intPattern.test(text) ? number : unsupportedScalar('big integer')
  }
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.slice(2), 8)
  if (/^0x[0-9a-fA-F]+$/.test(text)) return parseInt(text.slice(2), 16)
  if (/^[-+]?\.(inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity
  if (/^\.(nan|NaN|NAN)$/.test(text)) return NaN
  return text
}

function unsupportedScalar(why: string): never {
  throw new UnsupportedYaml(why)
}
