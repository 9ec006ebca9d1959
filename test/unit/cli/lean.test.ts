import { describe, expect, it } from 'vitest'
import { leanCommandId } from '../../../src/cli/lean.js'

describe('leanCommandId: which command lines skip oclif Config', () => {
  it.each([
    [['export', '--env', 'dev'], 'export'],
    [['export'], 'export'],
    [['run', '--env', 'dev', '--', 'node', 'server.js', '--help'], 'run'],
    [['render', '-f', 'compose.yaml', '--json'], 'render'],
    [['inject', '-i', 'a.tpl', '--env=dev'], 'inject'],
    [['export', '--env', 'dev', '--help'], undefined],
    [['run', '--help', '--', 'true'], undefined],
    [['export', 'extra'], undefined],
    [['run', 'true'], undefined],
    [['pwgen'], undefined],
    [['secrets', 'list'], undefined],
    [['--version'], undefined],
    [['constructor'], undefined],
    [['__proto__'], undefined],
    [[], undefined],
  ])('%j -> %s', (argv, id) => {
    expect(leanCommandId(argv, {})).toBe(id)
  })

  it('leaves DEBUG runs to oclif, whose Config writes the debug lines', () => {
    expect(leanCommandId(['export', '--env', 'dev'], { DEBUG: '*' })).toBeUndefined()
    expect(leanCommandId(['export', '--env', 'dev'], { DEBUG: '' })).toBe('export')
  })
})
