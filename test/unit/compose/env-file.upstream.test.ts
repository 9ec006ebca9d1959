/**
 * compose-go's own dotenv test cases, re-expressed as data (test/fixtures/compose-dotenv/cases.json,
 * SOURCE named there): vault's env file reader must give compose's answer on every one of them.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadProjectEnvironment } from '../../../src/compose/environment.js'
import { parseEnvFile } from '../../../src/compose/env-file.js'
import { ComposeInputError, RequiredVariableError } from '../../../src/compose/errors.js'
import { writeStack } from '../../helpers/compose-stack.js'

const fixtures = fileURLToPath(new URL('../../fixtures/compose-dotenv/', import.meta.url))

interface Source {
  test: string
  input?: string
  file?: string
  lookup?: Record<string, string>
}
interface DocumentCase extends Source {
  expect?: Record<string, string>
  exact?: boolean
  expectCount?: number
}
interface ErrorCase extends Source {
  kind: 'unexpected-character' | 'unterminated' | 'space-in-key' | 'required'
  line: number
  variable?: string
}
interface Cases {
  SOURCE: string
  parsing: { test: string; input: string; key: string; value: string }[]
  documents: DocumentCase[]
  errors: ErrorCase[]
  sequences: {
    test: string
    files: Record<string, string>
    runs: { environment: Record<string, string>; expect: Record<string, string> }[]
  }[]
}

const cases = JSON.parse(readFileSync(`${fixtures}cases.json`, 'utf8')) as Cases

function textOf(source: Source): string {
  return source.input ?? readFileSync(`${fixtures}files/${source.file}`, 'utf8')
}

function parse(source: Source): Record<string, string> {
  const lookup = source.lookup ?? {}
  return parseEnvFile(textOf(source), (name) => (Object.hasOwn(lookup, name) ? lookup[name] : undefined), {
    file: 'case.env',
  })
}

const messages: Record<ErrorCase['kind'], RegExp> = {
  'unexpected-character': /unexpected character ".+" in a variable name/,
  unterminated: /unterminated quoted value/,
  'space-in-key': /a key may not contain spaces/,
  required: /required variable \S+ is missing a value: Test error/,
}

describe(`compose-go dotenv cases (${cases.SOURCE.split(' at commit ')[1]?.slice(0, 12)})`, () => {
  it('names its source', () => {
    expect(cases.SOURCE).toMatch(/^github\.com\/compose-spec\/compose-go .* at commit [0-9a-f]{40}/)
  })

  it.each(cases.parsing.map((entry) => [entry.input, entry] as const))('TestParsing %j', (_, entry) => {
    const values = parse(entry)
    expect(Object.hasOwn(values, entry.key)).toBe(true)
    expect(values[entry.key]).toBe(entry.value)
  })

  it.each(cases.documents.map((entry) => [entry.test, entry] as const))('%s', (_, entry) => {
    const values = parse(entry)
    if (entry.expectCount !== undefined) expect(Object.keys(values)).toHaveLength(entry.expectCount)
    if (entry.exact) expect(values).toEqual(entry.expect)
    else expect(values).toMatchObject(entry.expect ?? {})
  })

  it.each(
    cases.errors.map(
      (entry) => [`${entry.test} ${JSON.stringify(entry.input ?? entry.file)}`, entry] as const,
    ),
  )('%s fails', (_, entry) => {
    let thrown: unknown
    try {
      parse(entry)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(entry.kind === 'required' ? RequiredVariableError : ComposeInputError)
    expect((thrown as Error).message).toMatch(messages[entry.kind])
    expect((thrown as ComposeInputError).line).toBe(entry.line)
    if (entry.variable) expect((thrown as RequiredVariableError).variable).toBe(entry.variable)
  })

  it.each(cases.sequences.map((entry) => [entry.test, entry] as const))(
    '%s (files read in order)',
    (_, entry) => {
      const cwd = writeStack(entry.files)
      for (const run of entry.runs) {
        const environment = loadProjectEnvironment({
          cwd,
          projectDirectory: cwd,
          envFiles: Object.keys(entry.files),
          processEnv: run.environment,
        })
        const fromFiles = Object.fromEntries(
          Object.keys(run.expect).map((name) => [
            name,
            environment.origins[name] === 'env-file' ? environment.variables[name] : undefined,
          ]),
        )
        // The process environment wins in the project variables; the files' own values are what upstream checks.
        for (const [name, value] of Object.entries(run.expect)) {
          if (Object.hasOwn(run.environment, name))
            expect(environment.variables[name]).toBe(run.environment[name])
          else expect(fromFiles[name]).toBe(value)
        }
      }
    },
  )
})
