import { describe, expect, it } from 'vitest'
import { hostEnvironment, isWithheldFromHost } from '../../../src/process/withheld-variables.js'

describe('withheld host variables', () => {
  it.each([
    ['ENCRYPTION_KEY', [], true],
    ['JWT_SECRET', [], true],
    ['DB_URL', [], true],
    ['DB_URL', ['DB_URL'], false],
    ['VAULT_CLIENT_SECRET', ['VAULT_CLIENT_SECRET'], true],
    ['VAULT_TOKEN', [], true],
    ['encryption_key', [], false],
    ['APP_ENCRYPTION_KEY', [], false],
    ['__proto__', [], false],
  ])('%s with --allow-env %j: withheld %s', (name, allow, withheld) => {
    expect(isWithheldFromHost(name, allow as string[])).toBe(withheld)
  })

  it('copies the host without them, into an object whose prototype no name can change', () => {
    const host = JSON.parse(
      '{"ENCRYPTION_KEY":"canary","JWT_SECRET":"canary","DB_URL":"canary","VAULT_CLIENT_SECRET":"canary","__proto__":"p","HOME":"/h"}',
    ) as NodeJS.ProcessEnv
    const kept = hostEnvironment(host)
    expect(JSON.stringify(kept)).not.toContain('canary')
    expect(kept.HOME).toBe('/h')
    expect(Object.hasOwn(kept, '__proto__')).toBe(true)
    expect(hostEnvironment(host, ['ENCRYPTION_KEY']).ENCRYPTION_KEY).toBe('canary')
  })
})
