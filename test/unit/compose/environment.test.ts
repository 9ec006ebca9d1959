/**
 * The variables a stack is interpolated with, in layers: env files, then the process environment, then
 * the vault (or the vault under the host with preferHostEnv). Names that mean something to JavaScript
 * objects (`__proto__`, `constructor`) are variables like any other, in every layer.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadProjectEnvironment } from '../../../src/compose/environment.js'

const root = mkdtempSync(join(tmpdir(), 'compose-environment-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, 'p-'))
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}

describe('loadProjectEnvironment', () => {
  it('layers .env, the process environment and the vault, and says who shadowed whom', () => {
    const dir = project({ '.env': 'A=file\nB=file\nC=file\n' })
    const env = loadProjectEnvironment({
      cwd: dir,
      projectDirectory: dir,
      processEnv: { B: 'host', C: 'host', D: undefined },
      secrets: { C: 'vault' },
    })
    expect(env.variables).toEqual({ A: 'file', B: 'host', C: 'vault' })
    expect(env.origins).toEqual({ A: 'env-file', B: 'environment', C: 'vault' })
    expect(env.shadowed).toEqual({ B: 'env-file', C: 'environment' })
    expect(env.lookup('D')).toBeUndefined()
    expect(env.envFiles).toEqual([join(dir, '.env')])
  })

  it('puts the host over the vault with preferHostEnv', () => {
    const dir = project({})
    const env = loadProjectEnvironment({
      cwd: dir,
      projectDirectory: dir,
      processEnv: { C: 'host' },
      secrets: { C: 'vault', V: 'vault' },
      preferHostEnv: true,
    })
    expect(env.variables).toEqual({ C: 'host', V: 'vault' })
    expect(env.shadowed).toEqual({ C: 'vault' })
    expect(env.envFiles).toEqual([])
  })

  it('reads the named env files in order instead of .env, relative to cwd, each seeing the earlier', () => {
    const dir = project({ '.env': 'IGNORED=1\n', 'conf/a.env': 'X=a\nY=a\n', 'conf/b.env': 'Y=b-${X}\n' })
    const env = loadProjectEnvironment({
      cwd: join(dir, 'conf'),
      projectDirectory: dir,
      envFiles: ['a.env', 'b.env'],
      processEnv: {},
    })
    expect(env.variables).toEqual({ X: 'a', Y: 'b-a' })
    expect(env.references.map(({ field, file, line }) => ({ field, file, line }))).toEqual([
      { field: 'Y', file: join(dir, 'conf/b.env'), line: 1 },
    ])
  })

  it('lets an env file read the host environment (compose does) but not inherited object keys', () => {
    const dir = project({ '.env': 'A=${HOST_ONLY}\nB=${toString}\nC=${constructor:-fallback}\n' })
    const env = loadProjectEnvironment({ cwd: dir, projectDirectory: dir, processEnv: { HOST_ONLY: 'h' } })
    expect(env.variables).toEqual({ A: 'h', B: '', C: 'fallback', HOST_ONLY: 'h' })
  })

  it('keeps __proto__ and constructor as plain variables in every layer', () => {
    const dir = project({ '.env': '__proto__=file\nconstructor=file\n' })
    const processEnv = JSON.parse('{"__proto__":"host","hasOwnProperty":"host"}') as Record<string, string>
    const env = loadProjectEnvironment({
      cwd: dir,
      projectDirectory: dir,
      processEnv,
      secrets: JSON.parse('{"constructor":"vault"}') as Record<string, string>,
    })
    expect(Object.getPrototypeOf(env.variables)).toBe(Object.prototype)
    expect(Object.entries(env.variables).sort()).toEqual(
      [
        ['__proto__', 'host'],
        ['constructor', 'vault'],
        ['hasOwnProperty', 'host'],
      ].sort(),
    )
    expect(env.lookup('__proto__')).toBe('host')
    expect(env.lookup('toString')).toBeUndefined()
    expect(Object.hasOwn(env.shadowed, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses a named env file that is missing', () => {
    const dir = project({})
    expect(() =>
      loadProjectEnvironment({ cwd: dir, projectDirectory: dir, envFiles: ['nope.env'], processEnv: {} }),
    ).toThrow(/nope\.env/)
  })
})
