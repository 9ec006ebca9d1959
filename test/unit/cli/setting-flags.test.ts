/**
 * oclif flags built from a settings table: each setting's flag of the right kind, its variable and
 * default in the help, no `env` of its own (the command reads the environment through the table).
 * Checked on a table of every kind and on the real table of `vault proxy serve`.
 */
import { describe, expect, it } from 'vitest'
import { settingFlags } from '../../../src/cli/setting-flags.js'
import { proxySettingSpecs, type SettingSpec } from '../../../src/proxy/settings.js'

type Flag = { type: string; summary: string; multiple?: boolean; options?: string[]; env?: string }

describe('settingFlags', () => {
  const specs = [
    { key: 'a', flag: 'on', env: 'X_ON', kind: 'boolean', summary: 'turn it on' },
    { key: 'b', flag: 'dirs', env: 'X_DIRS', kind: 'list', summary: 'directories' },
    {
      key: 'c',
      flag: 'level',
      env: 'X_LEVEL',
      kind: 'string',
      summary: 'level',
      default: 'info',
      options: ['info', 'debug'],
    },
    { key: 'd', flag: 'port', env: 'X_PORT', kind: 'number', summary: 'port', default: '0' },
  ] as unknown as SettingSpec[]

  it('makes a flag of each kind, the variable and default in its help', () => {
    const flags = settingFlags(specs) as Record<string, Flag>
    expect(Object.keys(flags)).toEqual(['on', 'dirs', 'level', 'port'])
    expect(flags.on).toMatchObject({ type: 'boolean', summary: 'turn it on [env: X_ON]' })
    expect(flags.dirs).toMatchObject({ type: 'option', multiple: true, summary: 'directories [env: X_DIRS]' })
    expect(flags.level).toMatchObject({
      options: ['info', 'debug'],
      summary: 'level [env: X_LEVEL] [default: info]',
    })
    expect(flags.port).toMatchObject({ summary: 'port [env: X_PORT] [default: 0]' })
    expect(flags.port!.options).toBeUndefined()
    for (const flag of Object.values(flags)) expect(flag.env).toBeUndefined()
  })

  it('gives every setting of vault proxy serve one flag, no two alike', () => {
    const flags = settingFlags(proxySettingSpecs) as Record<string, Flag>
    expect(Object.keys(flags)).toHaveLength(proxySettingSpecs.length)
    for (const spec of proxySettingSpecs) expect(flags[spec.flag]!.summary).toContain(`[env: ${spec.env}]`)
  })
})
