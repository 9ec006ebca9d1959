/**
 * `vault doctor`'s checks of a stack's files, on real directories and the real `git`: the credentials
 * file present, mode 600 and ignored; no VAULT_ setting in the `.env` compose reads; `--fix` moving such
 * lines out. No check's text holds a credential's value (a canary proves it).
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { DoctorCheck } from '../../../src/doctor/checks.js'
import { checkStackFiles } from '../../../src/doctor/stack-files.js'

const root = mkdtempSync(join(tmpdir(), 'stack-files-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const canary = 'CANARY-client-secret-5e1f'
let count = 0

function stack(files: Record<string, [string, number]>, ignore?: string, name = ''): string {
  const dir = join(root, `s${count++}${name}`)
  mkdirSync(join(dir, '.vault'), { recursive: true })
  execFileSync('git', ['init', '-q', dir])
  if (ignore !== undefined) writeFileSync(join(dir, '.gitignore'), ignore)
  for (const [name, [text, mode]] of Object.entries(files)) {
    writeFileSync(join(dir, name), text)
    chmodSync(join(dir, name), mode)
  }
  return dir
}

async function checks(dir: string, fix = false, fromEnvironment = false) {
  const found: Record<string, Omit<DoctorCheck, 'id'>> = {}
  await checkStackFiles(dir, fix, fromEnvironment, (id, title, check) => (found[id] = { title, ...check }))
  expect(JSON.stringify(found)).not.toContain(canary)
  return found
}

const credentials = `VAULT_DOMAIN=https://vault.example\nVAULT_CLIENT_SECRET=${canary}\n`

describe('checkStackFiles', () => {
  it('passes a private, ignored credentials file and a clean .env', async () => {
    const dir = stack({ '.vault/credentials': [credentials, 0o600], '.env': ['APP=1\n', 0o644] }, '.vault/\n')
    const found = await checks(dir)
    expect(Object.fromEntries(Object.entries(found).map(([id, check]) => [id, check.status]))).toEqual({
      'env-credentials': 'pass',
      'credentials-file': 'pass',
      'credentials-mode': 'pass',
      'credentials-git': 'pass',
    })
  })

  it('fails a credentials file others can read, with a chmod hint sh reads as the path', async () => {
    const dir = stack({ '.vault/credentials': [credentials, 0o644] }, '.vault/\n', " it's $(id)")
    const found = await checks(dir)
    const groupOnly = stack({ '.vault/credentials': [credentials, 0o640] }, '.vault/\n')
    expect((await checks(groupOnly))['credentials-mode']).toMatchObject({ status: 'fail' })
    expect(found['credentials-mode']).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/mode 644/),
    })
    const word = found['credentials-mode']!.hint!.replace(/^chmod 600 /, '')
    expect(execFileSync('/bin/sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' })).toBe(
      join(dir, '.vault/credentials'),
    )
  })

  it('fails a credentials file git would commit', async () => {
    const dir = stack({ '.vault/credentials': [credentials, 0o600] })
    expect((await checks(dir))['credentials-git']).toMatchObject({
      status: 'fail',
      hint: 'add .vault/ to .gitignore',
    })
  })

  it('fails VAULT_ settings left in .env, naming them, not their values', async () => {
    const dir = stack({ '.env': [`APP=1\n${credentials}`, 0o600] }, '.env\n')
    const found = await checks(dir)
    expect(found['env-credentials']).toMatchObject({ status: 'fail' })
    expect(found['env-credentials']!.detail).toMatch(
      /holds VAULT_DOMAIN, VAULT_CLIENT_SECRET: compose reads it/,
    )
    expect(found['credentials-file']!.status).toBe('skip')
    expect(found['credentials-git']).toMatchObject({ status: 'pass' })
  })

  it('skips a missing credentials file when the credentials come from the environment, else fails it', async () => {
    const dir = stack({})
    expect((await checks(dir, false, true))['credentials-file']!.status).toBe('skip')
    expect((await checks(dir, false, false))['credentials-file']).toMatchObject({ status: 'fail' })
  })

  it('moves the settings out of .env with --fix, keeping the other lines', async () => {
    const dir = stack({ '.env': [`APP=1\n${credentials}`, 0o600] }, '.env\n.vault/\n')
    const found = await checks(dir, true)
    expect(found['fix-credentials']).toMatchObject({ status: 'pass' })
    expect(found['env-credentials']!.status).toBe('pass')
    expect(found['credentials-file']!.status).toBe('pass')
    expect(readFileSync(join(dir, '.env'), 'utf8')).not.toContain(canary)
    expect(readFileSync(join(dir, '.env'), 'utf8')).toContain('APP=1')
  })
})
