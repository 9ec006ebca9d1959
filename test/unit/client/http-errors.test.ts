import { describe, expect, it } from 'vitest'
import { httpStatusError } from '../../../src/client/http-errors.js'
import { ExitCode } from '../../../src/errors.js'

describe('httpStatusError', () => {
  it('tells a CLI user to pass --env when the identity reaches several environments', () => {
    const body = JSON.stringify({
      error: { code: 'environment_required', message: 'add ?environment= with one of: dev, prod' },
    })
    const error = httpStatusError(400, body)
    expect(error.exitCode).toBe(ExitCode.usage)
    expect(error.message).toBe('no environment chosen, and the identity reaches several (dev, prod)')
    expect(error.hint).toBe('pass --env (or set VAULT_ENV)')
    expect(error.message).not.toContain('?environment=')
  })
})
