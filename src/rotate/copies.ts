/**
 * Before a rotation: other secrets of the environment that hold a copy of the value being rotated
 * (DATABASE_URL with the password written in, not as a template) would keep the old value. The
 * rotation refuses (ConflictError, exit 6) before anything changes, naming them (never a value),
 * unless --force; a template that references the secret is no copy, it follows the new value.
 */
import { ConflictError } from '../errors.js'
import { containersOf, minContainedLength } from '../text/contained-values.js'

/**
 * Throws a ConflictError when other secrets hold the value of `name`, unless `force` (then a warning).
 * `values` are the environment's resolved values; `templates` the templates that reference `name`.
 */
export function refuseCopies(options: {
  name: string
  values: Readonly<Record<string, string>>
  templates: readonly string[]
  force: boolean
  note: (line: string) => void
}): void {
  const { name, values } = options
  if ((values[name] ?? '').length < minContainedLength) {
    options.note(
      `${name} is shorter than ${minContainedLength} characters: not checked for copies inside other secrets`,
    )
    return
  }
  const holders = containersOf(values, name, new Set(options.templates))
  if (holders.length === 0) return
  const list = holders.join(', ')
  const how = holders.map((holder) => `vault secrets set ${holder} --template`).join('; ')
  if (options.force) {
    options.note(`Warning: --force: ${list} still hold the old value of ${name}; change them too (${how})`)
    return
  }
  throw new ConflictError(
    `${list} ${holders.length === 1 ? 'holds' : 'hold'} a copy of the value of ${name} and would keep the old one: nothing was changed`,
    {
      hint: `write ${name} into them as a reference (${how}, with \${${name}} in place of the value), or pass --force`,
    },
  )
}
