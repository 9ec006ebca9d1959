/** The decoders of the vault's answers (src/client/api-answers.ts): what a real server sends is accepted. */
import { describe, expect, it } from 'vitest'
import { versionValueAnswer } from '../../../src/client/api-answers.js'
import { decodeAnswer, VaultAnswerError } from '../../../src/client/vault-answer.js'
import { thrown } from '../../helpers/thrown.js'

describe('versionValueAnswer', () => {
  const version = { name: 'DB_PASSWORD', value: 'canary-v1', version: 1, createdAt: '2026-01-01T00:00:00Z' }

  it("accepts the server's answer for a version, which has no updatedAt", () => {
    expect(versionValueAnswer(version, 'answer')).toEqual(version)
  })

  it('keeps the template flag and drops fields it does not know', () => {
    expect(versionValueAnswer({ ...version, template: true, extra: 'x' }, 'answer')).toEqual({
      ...version,
      template: true,
    })
  })

  it('refuses a version without a value or a createdAt, with a bad name or a non-boolean template', () => {
    for (const bad of [
      { ...version, value: undefined },
      { ...version, createdAt: undefined },
      { ...version, name: '__proto__' },
      { ...version, name: 'NODE_OPTIONS=--require=x' },
      { ...version, template: 'yes' },
    ])
      expect(thrown(() => decodeAnswer('GET a version', bad, versionValueAnswer))).toBeInstanceOf(
        VaultAnswerError,
      )
  })
})
