/**
 * `vault inject`: a template file whose `$NAME` / `${NAME...}` references are substituted with
 * compose's own engine (src/compose/interpolate.ts: the same operators, `$$` escapes and messages),
 * line by line so every problem names its template line. Values come from the lookup the caller
 * builds; no value ever appears in a problem message (a vault value a `${V:?message}` references
 * is shown as ********). The CLI's own credentials (VAULT_CLIENT_SECRET, tokens) are unset for a
 * template, as they are for `vault run`'s child.
 */
import {
  located,
  ComposeFileNotFoundError,
  ComposeInputError,
  RequiredVariableError,
} from '../compose/errors.js'
import { interpolate, InterpolationError, unsetVariableWarning, type Lookup } from '../compose/interpolate.js'
import { readInputFile } from '../compose/input-file.js'
import { IoError, NotFoundError } from '../errors.js'
import { writeFileAtomic600 } from '../fs/atomic-file.js'
import { messageLookupOf } from '../compose/interpolate-model.js'
import { isWithheld, isWithheldFromHost } from '../process/withheld-variables.js'

export interface TemplateProblem {
  level: 'error' | 'warning'
  line: number
  variable?: string
  /** `TEMPLATE:LINE: message`, compose's wording. */
  message: string
}

export interface TemplateRendering {
  text: string
  /** Problems found; any error means `text` must not be used. */
  problems: TemplateProblem[]
}

/** Substitutes every reference of `template`, collecting every problem instead of stopping at one. */
export function renderTemplate(
  template: string,
  templatePath: string,
  lookup: Lookup,
  messageLookup?: Lookup,
): TemplateRendering {
  const problems: TemplateProblem[] = []
  const lines = template.split('\n')
  const rendered = lines.map((line, index) => {
    const number = index + 1
    const reported = new Set<string>()
    try {
      return interpolate(line, lookup, {
        messageLookup,
        onUnset: (name) => {
          if (reported.has(name)) return
          reported.add(name)
          problems.push({
            level: 'warning',
            line: number,
            variable: name,
            message: located(templatePath, number, unsetVariableWarning(name)),
          })
        },
      })
    } catch (error) {
      if (!(error instanceof InterpolationError)) throw error
      const message =
        error.code === 'ERR_INVALID_TEMPLATE'
          ? `Invalid template: ${describeInvalidLine(line)}`
          : error.message
      problems.push({
        level: 'error',
        line: number,
        variable: error.variable,
        message: located(templatePath, number, message),
      })
      return ''
    }
  })
  return { text: rendered.join('\n'), problems }
}

/** The first reference-looking part of a malformed line (the line may be long; it holds no values). */
function describeInvalidLine(line: string): string {
  const start = line.indexOf('${')
  const excerpt = start === -1 ? line : line.slice(start, start + 60)
  return JSON.stringify(excerpt)
}

/** The error for the first error problem (exit 3 for a missing required value, 2 otherwise), if any. */
export function renderingError(problems: TemplateProblem[], templatePath: string): Error | undefined {
  const problem = problems.find((candidate) => candidate.level === 'error')
  if (!problem) return undefined
  if (problem.variable)
    return new RequiredVariableError(problem.variable, undefined, undefined, problem.message)
  return new ComposeInputError(undefined, undefined, problem.message, `fix the reference in ${templatePath}`)
}

export interface InjectOptions {
  templatePath: string
  /** The file to write (mode 600, atomically); undefined renders to the result's text only. */
  outputPath?: string
  /** Only look for problems; write nothing. */
  check: boolean
  /** The vault's values; they win over the host environment. */
  secrets: Record<string, string>
  hostEnv: NodeJS.ProcessEnv
  /** Withheld host variables the template may still read (`--allow-env NAME`; withheld-variables.ts). */
  allowEnv?: readonly string[]
}

export interface InjectResult {
  template: string
  output?: string
  written: boolean
  /** How many distinct variables the template references. */
  variables: number
  problems: TemplateProblem[]
}

/** A template read and substituted, nothing written yet. */
export interface RenderedFile {
  result: InjectResult
  text: string
  /** Every name the substitution looked up: the secrets (and host variables) the output depends on. */
  names: Set<string>
}

/**
 * The template's text, read as compose files are (src/compose/input-file.ts): at most 16 MiB, so a
 * template that is a sparse file, `/dev/zero` or a link to either is refused after 16 MiB instead of
 * being read into memory whole; a pipe or device is read (the user named it) under the same limit.
 */
function readTemplate(path: string): string {
  try {
    return readInputFile(path, 'template', { named: true })
  } catch (error) {
    if (!(error instanceof ComposeFileNotFoundError)) throw error
    throw new NotFoundError(error.message, { hint: 'check the path given to -i' })
  }
}

/** Reads the template and substitutes it, collecting every problem; writes nothing. */
export async function renderTemplateFile(
  options: Omit<InjectOptions, 'check' | 'outputPath'> & { outputPath?: string },
): Promise<RenderedFile> {
  const template = readTemplate(options.templatePath)
  const names = new Set<string>()
  const lookup: Lookup = (name) => {
    names.add(name)
    if (isWithheld(name)) return undefined
    if (Object.hasOwn(options.secrets, name)) return options.secrets[name]
    if (isWithheldFromHost(name, options.allowEnv) || !Object.hasOwn(options.hostEnv, name)) return undefined
    return options.hostEnv[name]
  }
  const masked = messageLookupOf(lookup, new Set(Object.keys(options.secrets)))
  const rendering = renderTemplate(template, options.templatePath, lookup, masked)
  const result: InjectResult = {
    template: options.templatePath,
    output: options.outputPath,
    written: false,
    variables: names.size,
    problems: rendering.problems,
  }
  return { result, text: rendering.text, names }
}

/**
 * Renders the template and writes it (unless checking). Throws the first error problem when not
 * checking; returns the rendered text beside the result for printing to stdout.
 */
export async function injectTemplate(
  options: InjectOptions,
): Promise<{ result: InjectResult; text: string }> {
  const { result, text } = await renderTemplateFile(options)
  if (options.check) return { result, text: '' }
  const error = renderingError(result.problems, options.templatePath)
  if (error) throw error
  if (options.outputPath) {
    await writeRendered(options.outputPath, text)
    result.written = true
  }
  return { result, text }
}

/** Writes the rendered file (atomically, mode 600); a file-system failure is one IoError line (exit 9). */
export async function writeRendered(outputPath: string, text: string): Promise<void> {
  try {
    await writeFileAtomic600(outputPath, text)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (!code) throw error
    throw new IoError(`cannot write ${outputPath}: ${code}`, {
      hint: 'check that its directory exists and is writable, and that the path is not a directory',
      cause: error,
    })
  }
}
