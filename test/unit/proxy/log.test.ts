import { describe, expect, it } from 'vitest'
import { createLogger, formatLogLine, formatLogValue } from '../../../src/proxy/log.js'

describe('formatLogValue', () => {
  it.each([
    ['/v1.41/containers/json', '/v1.41/containers/json'],
    ['', '""'],
    ['a b', '"a b"'],
    ['/x\nlevel=info msg=forged', '"/x\\nlevel=info msg=forged"'],
    ['/x\r\u0000\u001b[31m', '"/x\\r\\u0000\\u001b[31m"'],
    ['say "hi"\\', '"say \\"hi\\"\\\\"'],
    ['a=b', '"a=b"'],
    ['\u2028', '"\\u2028"'],
  ])('%j -> %s', (value, expected) => {
    expect(formatLogValue(value)).toBe(expected)
  })
})

describe('log lines', () => {
  const time = new Date('2026-11-22T00:00:00Z')
  it('writes one grep-able key=value line', () => {
    const line = formatLogLine('text', {
      level: 'warning',
      message: 'request',
      fields: { method: 'POST', path: '/a\n/b', status: 403, rule: undefined },
      time,
    })
    expect(line).toBe(
      'time=2026-11-22T00:00:00.000Z level=warning msg=request method=POST path="/a\\n/b" status=403',
    )
    expect(line.split('\n')).toHaveLength(1)
  })

  it('writes JSON lines', () => {
    const line = formatLogLine('json', {
      level: 'debug',
      message: 'request',
      fields: { method: 'GET', path: '/a\u2028' },
      time,
    })
    expect(line).not.toMatch(/[\n\u2028]/)
    expect(JSON.parse(line)).toEqual({
      time: time.toISOString(),
      level: 'debug',
      msg: 'request',
      method: 'GET',
      path: '/a\u2028',
    })
  })

  it.each([
    [7, ['error', 'warning', 'info', 'debug']],
    [6, ['error', 'warning', 'info']],
    [4, ['error', 'warning']],
    [3, ['error']],
    [0, []],
  ] as const)('level %i writes %j', (level, written) => {
    const lines: string[] = []
    const logger = createLogger(level, 'text', (line) => lines.push(line))
    for (const name of ['error', 'warning', 'info', 'debug'] as const) logger.log(name, 'm')
    expect(lines.map((line) => /level=(\w+)/.exec(line)![1])).toEqual(written)
  })
})
