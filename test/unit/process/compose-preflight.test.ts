import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { composePreflight } from '../../../src/process/compose-preflight.js'
import { ExitCode } from '../../../src/errors.js'

const stack = mkdtempSync(join(tmpdir(), 'vault-preflight-'))
afterAll(() => rmSync(stack, { recursive: true, force: true }))
writeFileSync(
  join(stack, 'compose.yaml'),
  [
    'services:',
    '  db:',
    '    image: x',
    '    environment:',
    '      POSTGRES_PASSWORD: ${DATABASE_PASSWORD:?must be set}',
    '  app:',
    '    image: x',
    '    environment:',
    '      JWT: ${AUTH_JWT_SECRET}',
    '',
  ].join('\n'),
)

describe('composePreflight', () => {
  it('lists the referenced variables', async () => {
    const result = await composePreflight({
      cwd: stack,
      secrets: { DATABASE_PASSWORD: 'x', AUTH_JWT_SECRET: 'y', UNUSED: 'z' },
      hostEnv: {},
      check: false,
    })
    expect([...result.referenced].sort()).toEqual(['AUTH_JWT_SECRET', 'DATABASE_PASSWORD'])
  })

  it('--check refuses a missing required variable with exit 3, naming it and not its value', async () => {
    const attempt = composePreflight({
      cwd: stack,
      secrets: { AUTH_JWT_SECRET: 'CANARY-jwt' },
      hostEnv: {},
      check: true,
    })
    await expect(attempt).rejects.toMatchObject({
      exitCode: ExitCode.notConfigured,
      message: expect.stringContaining('DATABASE_PASSWORD'),
    })
    await expect(attempt).rejects.not.toMatchObject({ message: expect.stringContaining('CANARY') })
  })

  it('--check passes when every required variable has a value', async () => {
    const result = await composePreflight({
      cwd: stack,
      secrets: { DATABASE_PASSWORD: 'x', AUTH_JWT_SECRET: 'y' },
      hostEnv: {},
      check: true,
    })
    expect(result.referenced.has('DATABASE_PASSWORD')).toBe(true)
  })
})
