/** The decoders of the vault's answers (src/client/api-answers.ts): what a real server sends is accepted. */
import { describe, expect, it } from 'vitest'
import { secretVersionAnswer } from '../../../src/client/api-answers.js'
import { decodeAnswer, VaultAnswerError } from '../../../src/client/vault-answer.js'
import { thrown } from '../../helpers/thrown.js'

describe('secretVersionAnswer', () => {
  const version = { name: 'DB_PASSWORD', value: 'canary-v1', version: 1, createdAt: '2026-01-01T00:00:00Z' }

  it("accepts the server's answer for a version, which has no updatedAt (it is its createdAt)", () => {
    expect(secretVersionAnswer(version, 'answer')).toEqual({ ...version, updatedAt: version.createdAt })
  })

  it('keeps an updatedAt the server does send, and the template flag', () => {
    expect(
      secretVersionAnswer({ ...version, updatedAt: '2026-02-01T00:00:00Z', template: true }, 'answer'),
    ).toMatchObject({ updatedAt: '2026-02-01T00:00:00Z', template: true })
  })

  it('still refuses a version without a value, a createdAt, or with an updatedAt that is not a string', () => {
    for (const bad of [
      { ...version, value: undefined },
      { ...version, createdAt: undefined },
      { ...version, updatedAt: 7 },
      { ...version, name: '__proto__' },
    ])
      expect(thrown(() => decodeAnswer('GET a version', bad, secretVersionAnswer))).toBeInstanceOf(
        VaultAnswerError,
      )
  })
})
