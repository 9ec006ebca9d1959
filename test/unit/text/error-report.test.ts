import { describe, expect, it } from 'vitest'
import {
  AuthError,
  ExitCode,
  IntegrityError,
  IoError,
  NotFoundError,
  UsageError,
} from '../../../src/errors.js'
import { formatErrorReport, reportError } from '../../../src/text/error-report.js'

describe('reportError', () => {
  it.each([
    [new UsageError('bad flag'), ExitCode.usage, 'ERR_USAGE'],
    [new AuthError('refused'), ExitCode.auth, 'ERR_AUTH'],
    [new NotFoundError('no such secret'), ExitCode.notFound, 'ERR_NOT_FOUND'],
    [new IntegrityError('tampered'), ExitCode.integrity, 'ERR_INTEGRITY'],
    [new IoError('disk full'), ExitCode.io, 'ERR_IO'],
    [new Error('boom'), ExitCode.unexpected, 'ERR_UNEXPECTED'],
  ])('maps %s to its exit code', (error, exitCode, code) => {
    expect(reportError(error)).toMatchObject({ exitCode, code })
  })

  it('folds an oclif parser error into one usage line', () => {
    const parserError = Object.assign(
      new Error(
        'The following error occurred:\n  --bytes cannot be used with --length\nSee more help with --help',
      ),
      {
        oclif: { exit: 2 },
      },
    )
    expect(reportError(parserError)).toMatchObject({
      exitCode: 2,
      message: '--bytes cannot be used with --length',
    })
  })

  it('never prints the cause of an error', () => {
    const canary = 'CANARY-cause-value-7f3a'
    const report = reportError(
      new AuthError('token refused', { cause: new Error(canary), hint: 'run vault login' }),
    )
    expect(formatErrorReport(report)).toBe('Error: token refused\nHint: run vault login')
    expect(JSON.stringify(report)).not.toContain(canary)
  })
})
