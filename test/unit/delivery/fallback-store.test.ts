/**
 * The offline copies of `--fallback` (src/delivery/fallback-store.ts) on real files under a temporary
 * XDG_STATE_HOME. The test opens and seals copies itself with node:crypto's AES-256-GCM and the
 * documented additional data (format, domain, project, environment, savedAt), so the file format is
 * checked against that, not against the module. Hostile copies (age rewound, moved to another
 * identity, header edited, wrong key, bad secret names, garbage) are refused with IntegrityError.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  copyFilePath,
  deleteCopies,
  fallbackDirectory,
  listCopies,
  readCopy,
  writeCopy,
  type CopyIdentity,
} from '../../../src/delivery/fallback-store.js'
import { IntegrityError } from '../../../src/errors.js'

const canary = 'CANARY-fallback-store-2a'
const identity: CopyIdentity = { domain: 'https://vault.example', project: 'p1', environment: 'prod' }
const savedAt = Date.parse('2026-05-01T10:00:00.000Z')

let home: string
let env: NodeJS.ProcessEnv
let key: Buffer
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'fallback-store-'))
  env = { XDG_STATE_HOME: join(home, 'state') }
  key = randomBytes(32)
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

const aad = (who: CopyIdentity, at: string) =>
  Buffer.from(JSON.stringify(['vault-fallback/1', who.domain, who.project, who.environment, at]))

/** A copy file sealed by the test. */
function sealFile(who: CopyIdentity, at: string, content: unknown, with_ = key): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', with_, iv)
  cipher.setAAD(aad(who, at))
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(content)), cipher.final()])
  return JSON.stringify({
    format: 'vault-fallback/1',
    ...who,
    savedAt: at,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  })
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

/** Writes `text` as the copy of `who` and reads it with `withKey` (null: no key). */
async function expectRefused(text: string, who = identity, withKey: Buffer | null = key): Promise<string> {
  mkdirSync(fallbackDirectory(env), { recursive: true, mode: 0o700 })
  writeFileSync(copyFilePath(who, env), text, { mode: 0o600 })
  const error = await refusal(readCopy(who, withKey ?? undefined, env))
  expect(error).toBeInstanceOf(IntegrityError)
  expect((error as Error).message).not.toContain(canary)
  return (error as Error).message
}

describe('writeCopy and readCopy', () => {
  it('writes a private file the test opens with node:crypto, and reads it back', async () => {
    const secrets = [
      { name: 'DB_PASSWORD', value: canary, version: 3 },
      { name: 'EMPTY', value: '' },
    ]
    await writeCopy({ identity, savedAt, secrets }, key, env)
    const path = copyFilePath(identity, env)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(fallbackDirectory(env)).mode & 0o777).toBe(0o700)
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain(canary)
    const file = JSON.parse(text) as Record<string, string>
    expect(file.savedAt).toBe('2026-05-01T10:00:00.000Z')
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(file.iv!, 'base64'))
    decipher.setAAD(aad(identity, file.savedAt!))
    decipher.setAuthTag(Buffer.from(file.tag!, 'base64'))
    const plain = Buffer.concat([decipher.update(Buffer.from(file.ciphertext!, 'base64')), decipher.final()])
    expect(JSON.parse(plain.toString())).toEqual({ secrets })
    expect(await readCopy(identity, key, env)).toEqual({ identity, savedAt, secrets })
    expect(await readCopy({ ...identity, environment: 'dev' }, key, env)).toBeUndefined()
  })

  it('keeps hostile identities out of the path', () => {
    const path = copyFilePath({ domain: '../../etc', project: '/passwd', environment: '\0..' }, env)
    expect(dirname(path)).toBe(fallbackDirectory(env))
    expect(basename(path)).toMatch(/^[0-9a-f]{32}\.json$/)
  })

  it('refuses a copy whose age was rewound, moved to another identity, or re-labelled', async () => {
    await writeCopy({ identity, savedAt, secrets: [{ name: 'A', value: canary }] }, key, env)
    const original = readFileSync(copyFilePath(identity, env), 'utf8')
    const file = JSON.parse(original) as Record<string, string>
    await expectRefused(JSON.stringify({ ...file, savedAt: new Date().toISOString() }))
    const other = { ...identity, environment: 'dev' }
    copyFileSync(copyFilePath(identity, env), copyFilePath(other, env))
    const moved = await refusal(readCopy(other, key, env))
    expect(moved).toBeInstanceOf(IntegrityError)
    expect((moved as Error).message).toMatch(/belongs to another vault, project or environment/)
    expect(await expectRefused(JSON.stringify({ ...file, environment: 'dev' }), other)).toMatch(
      /integrity check/,
    )
  })

  it('refuses a wrong or missing key, and a corrupted file', async () => {
    const good = sealFile(identity, '2026-05-01T10:00:00.000Z', { secrets: [{ name: 'A', value: canary }] })
    expect(await expectRefused(good, identity, randomBytes(32))).toMatch(/integrity check/)
    expect(await expectRefused(good, identity, null)).toMatch(/key is missing/)
    const file = JSON.parse(good) as Record<string, string>
    for (const broken of [
      'not json',
      '[]',
      JSON.stringify({ ...file, format: 'vault-fallback/2' }),
      JSON.stringify({ ...file, iv: Buffer.alloc(8).toString('base64') }),
      JSON.stringify({ ...file, tag: Buffer.alloc(8).toString('base64') }),
      JSON.stringify({ ...file, savedAt: 'yesterday' }),
      JSON.stringify({ ...file, project: 7 }),
    ])
      expect(await expectRefused(broken)).toMatch(/is corrupted/)
  })

  it('refuses an authentic copy whose content is not what a vault answers', async () => {
    const at = '2026-05-01T10:00:00.000Z'
    for (const content of [
      { secrets: [{ name: '../etc/passwd', value: canary }] },
      {
        secrets: [
          { name: 'A', value: canary },
          { name: 'A', value: 'twice' },
        ],
      },
      { secrets: [{ name: 'A', value: 42 }] },
      { secrets: [{ name: 'A', value: canary, version: -1 }] },
      { secrets: 'none' },
      [],
    ])
      expect(await expectRefused(sealFile(identity, at, content))).toMatch(/is not usable/)
  })
})

describe('listCopies and deleteCopies', () => {
  it('lists the copies of one vault and project, skipping garbage, and says when none is left', async () => {
    const dev = { ...identity, environment: 'dev' }
    const otherProject = { ...identity, project: 'p2' }
    for (const who of [identity, dev, otherProject])
      await writeCopy({ identity: who, savedAt, secrets: [] }, key, env)
    writeFileSync(join(fallbackDirectory(env), 'garbage.json'), '{"format":"vault-fallback/1"')
    const listed = await listCopies(identity.domain, identity.project, env)
    expect(listed.map((copy) => copy.identity.environment).sort()).toEqual(['dev', 'prod'])
    expect(listed.map((copy) => copy.path).sort()).toEqual(
      [copyFilePath(dev, env), copyFilePath(identity, env)].sort(),
    )
    expect(await listCopies('https://other.example', identity.project, env)).toEqual([])
    expect(
      await deleteCopies(
        listed.map((copy) => copy.path),
        env,
      ),
    ).toBe(false)
    rmSync(join(fallbackDirectory(env), 'garbage.json'))
    expect(await deleteCopies([copyFilePath(otherProject, env)], env)).toBe(true)
    expect(await listCopies(identity.domain, 'p2', { XDG_STATE_HOME: join(home, 'nowhere') })).toEqual([])
  })
})
