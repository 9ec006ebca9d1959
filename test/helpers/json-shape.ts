/**
 * The `--json` output of each command is checked against its schema file, `test/schemas/<id>.json`
 * (the command id with `-` for blanks: `secrets-list.json`), so a changed shape is a deliberate change
 * to a file a script author can read. JSON Schema draft 2020-12 through ajv.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const schemaDir = fileURLToPath(new URL('../schemas/', import.meta.url))
const ajv = new Ajv2020({ allErrors: true, strict: true })
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
