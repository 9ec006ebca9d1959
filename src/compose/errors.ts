/**
 * The errors of the compose loader: bad input located by file and line (exit 2 from the table),
 * a missing compose or env file (exit 5) and a required variable without a value (exit 3).
 */
import { NotConfiguredError, NotFoundError, UsageError } from '../errors.js'

/** Formats `file:line: message` (the line is left out when unknown). */
export function located(file: string | undefined, line: number | undefined, message: string): string {
  if (file === undefined) return message
  return line === undefined ? `${file}: ${message}` : `${file}:${line}: ${message}`
}

/** Malformed input: YAML, an env file, a template, an `extends` cycle. */
export class ComposeInputError extends UsageError {
  override name = 'ComposeInputError'
  readonly file?: string
  readonly line?: number

  constructor(file: string | undefined, line: number | undefined, message: string, hint?: string) {
    super(located(file, line, message), { hint })
    this.file = file
    this.line = line
  }
}

/** A compose file, env file or `extends` file that does not exist or cannot be read. */
export class ComposeFileNotFoundError extends NotFoundError {
  override name = 'ComposeFileNotFoundError'
}

/** No compose file at all: none named, none in the directory or above (not a file some compose file names). */
export class NoComposeFileError extends ComposeFileNotFoundError {
  override name = 'NoComposeFileError'
}

/** A `${VAR:?msg}` / `${VAR?msg}` reference without a value. */
export class RequiredVariableError extends NotConfiguredError {
  override name = 'RequiredVariableError'
  readonly variable: string
  readonly file?: string
  readonly line?: number

  constructor(variable: string, file: string | undefined, line: number | undefined, message: string) {
    super(located(file, line, message), {
      hint: `set ${variable} in the vault, the environment or an env file`,
    })
    this.variable = variable
    this.file = file
    this.line = line
  }
}
