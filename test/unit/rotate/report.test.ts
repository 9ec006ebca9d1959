import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { formatDueReport, formatOtherStackWarning, formatRotateReport } from '../../../src/rotate/report.js'

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

describe('the warning for another stack that uses the rotated secret', () => {
  it('quotes every word of the command to paste, as sh reads it back', () => {
    const stackDir = "/srv/it's $(touch pwned) `id` a;b"
    const line = formatOtherStackWarning({ stackDir, services: ['web', 'worker'] }, 'DB_PASSWORD', 'prod')
    const command = line.slice(line.indexOf('old value: ') + 'old value: '.length)
    // sh runs the command with cd and vault as functions that print their arguments, one per line
    const printed = execFileSync(
      'sh',
      ['-c', `cd() { printf '[%s]\\n' "$@"; }; vault() { printf '[%s]\\n' "$@"; }; ${command}`],
      {
        encoding: 'utf8',
      },
    )
    expect(printed.trim().split('\n')).toEqual(
      [
        stackDir,
        'run',
        '--env',
        'prod',
        '--',
        'docker',
        'compose',
        'up',
        '-d',
        '--no-deps',
        'web',
        'worker',
      ].map((word) => `[${word}]`),
    )
  })
})
