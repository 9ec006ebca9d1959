import { describe, expect, it } from 'vitest'
import { describeCaveats } from '../../../src/export/export-secrets.js'
import { formatDoctorReport } from '../../../src/ui/doctor-report.js'
import { formatDueReport, formatRotateReport } from '../../../src/ui/rotate-report.js'

describe('formatDoctorReport', () => {
  it('prints one line per check and a hint under failures', () => {
    const text = formatDoctorReport({
      ok: false,
      checks: [
        { id: 'a', title: '.env present', status: 'pass', detail: '/s/.env' },
        { id: 'b', title: '.env mode 600', status: 'fail', detail: 'mode 644', hint: 'chmod 600 /s/.env' },
        { id: 'c', title: 'socket proxy reachable', status: 'skip', detail: 'no proxy configured' },
      ],
    })
    expect(text).toBe(
      [
        'PASS  .env present: /s/.env',
        'FAIL  .env mode 600: mode 644',
        '      hint: chmod 600 /s/.env',
        'SKIP  socket proxy reachable: no proxy configured',
        '1 check(s) failed',
      ].join('\n'),
    )
  })
})

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

describe('describeCaveats', () => {
  it.each([
    [{}, undefined],
    [{ A: ['docker-compose-v1'] }, 'docker-compose-v1 (A)'],
    [
      Object.fromEntries(['A', 'B', 'C', 'D', 'E', 'F', 'G'].map((name) => [name, ['docker-compose-v1']])),
      'docker-compose-v1 (A, B, C, D, E and 2 more)',
    ],
  ] as const)('%j', (caveats, expected) => {
    const text = describeCaveats(caveats as never)
    if (expected === undefined) expect(text).toBeUndefined()
    else expect(text).toContain(expected)
  })
})
