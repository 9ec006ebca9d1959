/**
 * The key of the offline copies when no keychain answers (VAULT_KEYCHAIN=off): a 32-byte key in a mode-600
 * file under $XDG_CONFIG_HOME/vault, made once, read back as made; a damaged file is no key, and a
 * directory others can write into is refused (they could plant a key of their own).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  deleteFallbackKey,
  ensureFallbackKey,
  fallbackKeyFilePath,
  readFallbackKey,
} from '../../../src/delivery/fallback-key.js'

const root = mkdtempSync(join(tmpdir(), 'fallback-key-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let count = 0
const home = (): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: join(root, `c${count++}`), VAULT_KEYCHAIN: 'off' })

describe('fallback key', () => {
  it('lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(fallbackKeyFilePath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/vault/fallback.key')
    expect(fallbackKeyFilePath({ HOME: '/h' })).toBe('/h/.config/vault/fallback.key')
  })

  it('makes a 32-byte key once, in a private file, and reads it back', async () => {
    const env = home()
    expect(await readFallbackKey(env)).toBeUndefined()
    const key = await ensureFallbackKey(env)
    expect(key).toHaveLength(32)
    const path = fallbackKeyFilePath(env)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700)
    expect(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64').equals(key)).toBe(true)
    expect((await readFallbackKey(env))!.equals(key)).toBe(true)
    expect((await ensureFallbackKey(env)).equals(key)).toBe(true)
    await deleteFallbackKey(env)
    expect(await readFallbackKey(env)).toBeUndefined()
  })

  it.each([
    ['a short key', Buffer.alloc(16).toString('base64')],
    ['a long key', Buffer.alloc(33).toString('base64')],
    ['no base64', '!!!!'],
    ['nothing', ''],
  ])('takes a file holding %s as no key, and replaces it', async (_, text) => {
    const env = home()
    const path = fallbackKeyFilePath(env)
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    writeFileSync(path, text, { mode: 0o600 })
    expect(await readFallbackKey(env)).toBeUndefined()
    expect(await ensureFallbackKey(env)).toHaveLength(32)
  })

  it('refuses a key directory that others can write into', async () => {
    const env = home()
    const directory = dirname(fallbackKeyFilePath(env))
    mkdirSync(directory, { recursive: true })
    chmodSync(directory, 0o777)
    await expect(readFallbackKey(env)).rejects.toThrow(/can be written by other users/)
    await expect(ensureFallbackKey(env)).rejects.toThrow(/can be written by other users/)
  })
})
