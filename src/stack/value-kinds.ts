/**
 * What a literal value in a stack's files is, for deciding whether a variable is a secret to generate:
 * a path, a URL (and the password it holds), a boolean, a number, a published placeholder
 * (CHANGEME, password, minioadmin). Pure functions over the text; no value ever leaves them.
 */

/** The kind of a literal default that is never replaced by a generated value, or undefined. */
export function notASecretValue(value: string): string | undefined {
  if (value === '') return 'optional: empty by default'
  if (value.includes('$')) return 'its default names another variable'
  if (/^(true|false|yes|no|on|off)$/i.test(value)) return 'a boolean'
  if (/^-?\d{1,10}(\.\d+)?$/.test(value)) return 'a number'
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    return urlPassword(value) ? 'a URL with a password' : 'a URL without credentials'
  if (/^(\/|\.\.?\/|~\/)/.test(value) || /\.(pem|key|crt|cert|der|p12|pfx|jks)$/i.test(value)) return 'a path'
  return undefined
}

/** Where the password of a `scheme://user:password@host` URL sits in `url`, when it has one. */
export function urlPassword(url: string): { password: string; start: number; end: number } | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^:@/?#\s]*:([^@/?#\s]+)@/i.exec(url)
  if (!match) return undefined
  const password = match[1]!
  const end = match[0].length - 1
  return { password, start: end - password.length, end }
}

/** Template text for a literal: `${` becomes `$${` (see src/client/resolve-templates.ts). */
export function templateLiteral(text: string): string {
  // a function, not the string '$${': in a replacement string `$$` stands for one `$`
  return text.replaceAll('${', () => '$${')
}

/**
 * `value` as a template in which `inner` (the value of secret `name`) is replaced by `${name}`:
 * a URL's password when it equals `inner`, otherwise every occurrence of `inner`; undefined when
 * `value` does not hold it.
 */
export function templateOf(value: string, inner: string, name: string): string | undefined {
  if (inner === '') return undefined
  const url = urlPassword(value)
  if (url) {
    if (url.password !== inner) return undefined
    return templateLiteral(value.slice(0, url.start)) + `\${${name}}` + templateLiteral(value.slice(url.end))
  }
  if (value === inner) return `\${${name}}`
  if (!value.includes(inner)) return undefined
  const pieces = value.split(inner)
  // `$` right before a reference would read as `$${`, a literal `${`: the syntax cannot write it
  if (pieces.slice(0, -1).some((piece) => piece.endsWith('$'))) return undefined
  return pieces.map((piece) => templateLiteral(piece)).join(`\${${name}}`)
}

const placeholderWords = new Set([
  'admin',
  'changeit',
  'changeme',
  'default',
  'mariadb',
  'minioadmin',
  'mysecret',
  'mysql',
  'pass',
  'passw0rd',
  'password',
  'postgres',
  'root',
  'secret',
  'test',
  '123456',
  '12345678',
])

/** True when `value` is one of the placeholders stacks publish (CHANGEME, change-me, password, ...). */
export function isPublishedPlaceholder(value: string): boolean {
  const word = value.toLowerCase().replace(/[^a-z0-9]/g, '')
  if (word === '' || placeholderWords.has(word)) return true
  if (/^(.)\1*$/.test(word)) return true
  return /changeme|changethis|replaceme|replacewith|yoursecret|yourpassword|placeholder|example|insecure/.test(
    word,
  )
}
