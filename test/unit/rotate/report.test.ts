import { describe, expect, it } from 'vitest'
import { formatDueReport, formatRotateReport } from '../../../src/rotate/report.js'

describe('rotate reports', () => {
  it('names each recreated service with its state', () => {
    const text = formatRotateReport({
      name: 'DATABASE_PASSWORD',
      previousVersion: 1,
      version: 2,
      vaultVersion: 2,
      vaultHolds: 'new',
      outcome: 'unhealthy',
      hook: 'none',
      restarted: true,
      healthy: false,
      services: [
        { service: 'app', status: 'running', ok: true },
        { service: 'db', status: 'running', health: 'starting', ok: false, reason: 'not ready after 60 s' },
      ],
    })
    expect(text).toBe(
      [
        'ok   app: running',
        'FAIL db: running (starting) - not ready after 60 s',
        'rotated DATABASE_PASSWORD to version 2, but the services are NOT ready (--no-rollback); the vault holds version 2 (the new value)',
      ].join('\n'),
    )
  })

  it('after a rollback says which version the vault holds and how the services came back', () => {
    const text = formatRotateReport({
      name: 'DB_PASSWORD',
      previousVersion: 1,
      version: 2,
      vaultVersion: 3,
      vaultHolds: 'previous',
      outcome: 'rolled-back',
      hook: 'none',
      restarted: true,
      healthy: false,
      services: [{ service: 'app', status: 'exited', ok: false, reason: 'the container exited' }],
      rollback: { healthy: true, services: [{ service: 'app', status: 'running', ok: true }] },
    })
    expect(text.split('\n')).toEqual([
      'FAIL app: exited - the container exited',
      'rotated DB_PASSWORD to version 2, but the services were NOT ready: rolled back',
      '  ok   app: running',
      '  recreated with the previous value: all ready',
      'the vault holds version 3 (the value of version 1)',
    ])
  })

  it('says how many secrets are due', () => {
    const text = formatDueReport({
      due: 1,
      secrets: [
        {
          name: 'DB_PASSWORD',
          kind: 'database password',
          updatedAt: '',
          ageDays: 91,
          maxAgeDays: 90,
          due: true,
        },
      ],
    })
    expect(text).toMatch(/^ {5}NAME/)
    expect(text).toMatch(/DUE {2}DB_PASSWORD {2}database password {2}91d {2}90d/)
    expect(text.endsWith('1 secret(s) due for rotation')).toBe(true)
  })
})
