/**
 * How an error reads on the terminal: one line saying what happened, an optional hint line.
 * The message is the error's own; nothing from its cause (which could hold a value) is printed.
 */
import { ExitCode, VaultError, exitCodeOf } from '../errors.js'
import { escapeField } from './terminal-text.js'

export interface ErrorReport {
  name: string
  code: string
  exitCode: number
  message: string
  hint?: string
}

interface OclifLikeError {
  oclif?: { exit?: number }
  code?: unknown
}

/** The parts of an error the CLI shows, with its exit code. */
export function reportError(error: unknown): ErrorReport {
  if (error instanceof VaultError) {
    return {
      name: error.name,
      code: error.code,
      exitCode: error.exitCode,
      message: firstLine(error.message),
      hint: error.hint,
    }
  }
  const err = error instanceof Error ? error : new Error(String(error))
  const oclifExit = (err as OclifLikeError).oclif?.exit
  if (typeof oclifExit === 'number') {
    return {
      name: 'UsageError',
      code: 'ERR_USAGE',
      exitCode: oclifExit === 1 ? ExitCode.usage : oclifExit,
      message: oneLine(err.message),
    }
  }
  return {
    name: err.name,
    code: 'ERR_UNEXPECTED',
    exitCode: exitCodeOf(err),
    message: firstLine(err.message),
  }
}

/** The report as the lines written to stderr. */
export function formatErrorReport(report: ErrorReport): string {
  const lines = [`Error: ${escapeField(report.message)}`]
  if (report.hint) lines.push(`Hint: ${escapeField(report.hint)}`)
  return lines.join('\n')
}

/** oclif's parser errors span several lines under a heading: fold them into one. */
function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.replace(/^\s*(Error:\s*)?/, '').trim())
    .filter(
      (line) =>
        line !== '' && !/^The following errors? occurred:?$/.test(line) && !line.startsWith('See more help'),
    )
    .join('; ')
}

function firstLine(message: string): string {
  const line = message.split('\n').find((part) => part.trim() !== '') ?? message
  return line.trim()
}
