/**
 * Before a rotation: other secrets that hold a copy of the value refuse it (exit 6) before anything
 * changes, naming them and never a value (a canary proves it); --force turns that into a warning; a
 * template that references the secret is no copy.
 */
import { describe, expect, it } from 'vitest'
import { ConflictError } from '../../../src/errors.js'
import { refuseCopies } from '../../../src/rotate/copies.js'

const canary = 'Canary7x9QpL2m'
const values = {
  POSTGRES_PASSWORD: canary,
  DATABASE_URL: `postgresql://app:${encodeURIComponent(canary)}@db/app`,
  WORKER_URL: `redis://:${canary}@cache`,
  CONNECTION: `host=db password=${canary} user=app`,
  LONGER: `${canary}suffix`,
  ELSEWHERE: 'unrelated',
}

function outcome(options: Partial<Parameters<typeof refuseCopies>[0]>) {
  const notes: string[] = []
  try {
    refuseCopies({
      name: 'POSTGRES_PASSWORD',
      values,
      templates: [],
      force: false,
      note: (line) => notes.push(line),
      ...options,
    })
    return { notes }
  } catch (error) {
    return { notes, error: error as ConflictError }
  }
}

describe('refuseCopies', () => {
  it('refuses, naming every holder sorted and no value', () => {
    const { error, notes } = outcome({})
    expect(error).toBeInstanceOf(ConflictError)
    expect(error!.exitCode).toBe(6)
    expect(error!.message).toBe(
      'CONNECTION, DATABASE_URL, WORKER_URL hold a copy of the value of POSTGRES_PASSWORD and would keep the old one: nothing was changed',
    )
    expect(`${error!.message} ${error!.hint} ${notes.join(' ')}`).not.toContain(canary)
    expect(error!.hint).toContain('vault secrets set DATABASE_URL --template')
    expect(error!.hint).toContain('${POSTGRES_PASSWORD}')
  })

  it('lets the templates that reference the secret through', () => {
    const { error } = outcome({ templates: ['CONNECTION', 'DATABASE_URL'] })
    expect(error!.message).toMatch(/^WORKER_URL holds a copy/)
    expect(outcome({ templates: ['CONNECTION', 'DATABASE_URL', 'WORKER_URL'] })).toEqual({ notes: [] })
  })

  it('only warns with --force, still without the value', () => {
    const { error, notes } = outcome({ force: true })
    expect(error).toBeUndefined()
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatch(/^Warning: --force: CONNECTION, DATABASE_URL, WORKER_URL still hold/)
    expect(notes[0]).not.toContain(canary)
  })

  it('says it did not look when the value is too short to compare', () => {
    const { error, notes } = outcome({ values: { POSTGRES_PASSWORD: 'short', URL: 'x://a:short@h' } })
    expect(error).toBeUndefined()
    expect(notes).toEqual([
      'POSTGRES_PASSWORD is shorter than 8 characters: not checked for copies inside other secrets',
    ])
    expect(outcome({ values: {} }).notes[0]).toMatch(/shorter than 8/)
  })
})
