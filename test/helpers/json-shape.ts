/**
 * The `--json` output of each command is checked against its schema file, `test/schemas/<id>.json`
 * (the command id with `-` for blanks: `secrets-list.json`), generated from the type each command's
 * run() promises by scripts/json-schemas.ts and committed, so a changed shape is a deliberate change
 * to a file a script author can read. JSON Schema draft-07 through ajv. `checkJsonAnswer` is what
 * runCli and runCommand call on every `--json` answer a test sees.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const schemaDir = fileURLToPath(new URL('../schemas/', import.meta.url))
const ajv = new Ajv({ allErrors: true, strict: true })
const compiled = new Map<string, ValidateFunction>()

/** The schema file's name for a command id (`secrets list` or `secrets:list`). */
export function schemaFileFor(commandId: string): string {
  return `${commandId.replace(/[ :]/g, '-')}.json`
}

/** The problems of `value` against the command's schema (empty when it conforms). */
export function jsonShapeProblems(commandId: string, value: unknown): string[] {
  const file = schemaFileFor(commandId)
  let validate = compiled.get(file)
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(`${schemaDir}${file}`, 'utf8')) as object)
    compiled.set(file, validate)
  }
  if (validate(value)) return []
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`)
}

/**
 * The schema stem of a command line (`['secrets', 'list', '-e', 'dev']` is `secrets-list`): the longest
 * run of leading words that names a schema file, or undefined for a command without `--json`.
 */
export function schemaStemOf(args: readonly string[]): string | undefined {
  const words: string[] = []
  for (const arg of args) {
    if (arg.startsWith('-')) break
    words.push(arg)
  }
  for (let count = words.length; count > 0; count--) {
    const stem = words.slice(0, count).join('-')
    if (existsSync(`${schemaDir}${stem}.json`)) return stem
  }
  return undefined
}

/**
 * Throws when `stdout`, the `--json` answer of `vault <args>`, does not have the documented shape: a
 * failure's `{ error }` object (error.json), or the command's own result (also on exit 10, findings).
 */
export function checkJsonAnswer(args: readonly string[], stdout: string): void {
  const stem = schemaStemOf(args)
  if (!stem || stdout.trim() === '') return
  let answer: unknown
  try {
    answer = JSON.parse(stdout)
  } catch {
    return // a --json line that is not one JSON document (a server's start line, a stream) is the test's business
  }
  const isError =
    typeof answer === 'object' && answer !== null && 'error' in answer && Object.keys(answer).length === 1
  const problems = jsonShapeProblems(isError ? 'error' : stem, answer)
  if (problems.length > 0)
    throw new Error(
      `vault ${args.join(' ')}: the --json answer does not match test/schemas/${isError ? 'error' : stem}.json: ${problems.join('; ')}`,
    )
}
