import { describe, expect, it } from 'vitest'
import { unexpectedFailure } from '../../../../src/server/http/failures.js'

function failing(error: unknown, engine: 'sqlite' | 'postgres' = 'postgres') {
  const lines: string[] = []
  const failure = unexpectedFailure(error, { engine, requestId: 'req-1', log: (line) => lines.push(line) })
  return { failure, lines }
}

describe('unexpectedFailure', () => {
  it('answers a storage fault 503 with Retry-After and logs its cause', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 5432,
    })
    expect(failing(error)).toEqual({
      failure: {
        status: 503,
        apiCode: 'database_unavailable',
        message: "the vault's database is unavailable; retry later (request req-1)",
        headers: { 'retry-after': '5' },
      },
      lines: [
        'vault server: request req-1 failed: database unavailable: ECONNREFUSED connecting to PostgreSQL at 127.0.0.1:5432',
      ],
    })
  })

  it.each<[string, unknown, string]>([
    ['an Error', new Error('CANARY-value in a message'), 'vault server: request req-1 failed: Error'],
    [
      'a coded error',
      Object.assign(new TypeError('CANARY'), { code: 'ERR_INVALID_ARG_TYPE' }),
      'vault server: request req-1 failed: TypeError (ERR_INVALID_ARG_TYPE)',
    ],
    [
      'a code that is text',
      Object.assign(new Error('x'), { code: 'CANARY value; rm -rf /' }),
      'vault server: request req-1 failed: Error',
    ],
    ['a thrown string', 'CANARY', 'vault server: request req-1 failed: string'],
    ['undefined', undefined, 'vault server: request req-1 failed: undefined'],
  ])('answers anything else 500 and logs %s by class and code, never its message', (_label, error, line) => {
    const { failure, lines } = failing(error)
    expect(failure).toEqual({
      status: 500,
      apiCode: 'internal_error',
      message: 'internal error (request req-1)',
      headers: {},
    })
    expect(lines).toEqual([line])
  })
})
