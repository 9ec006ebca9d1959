import { describe, expect, it } from 'vitest'
import { formatDoctorReport } from '../../../src/doctor/report.js'

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
