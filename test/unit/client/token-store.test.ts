import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { fileTokenStore, openTokenStore, tokenFilePath, tokenKey } from '../../../src/client/token-store.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'

let home: TempHome
beforeEach(() => {
  home = createTempHome()
})
afterEach(() => home.cleanup())

describe.runIf(process.platform === 'linux')('openTokenStore on Linux', () => {
  it.each([
    ['VAULT_KEYCHAIN=off', { VAULT_KEYCHAIN: 'off', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' }],
    [
      'a headless Linux without a session bus',
      { VAULT_KEYCHAIN: undefined, DBUS_SESSION_BUS_ADDRESS: undefined },
    ],
  ])('falls back to the file with %s', async (_what, overrides) => {
    const store = await openTokenStore({ ...home.env, ...overrides })
    expect(store.kind).toBe('file')
  })

  it('puts the file under XDG_STATE_HOME/vault', () => {
    expect(tokenFilePath(home.env)).toBe(`${home.env.XDG_STATE_HOME}/vault/tokens.json`)
  })
})

describe('fileTokenStore', () => {
  it('keeps one entry per (domain, client id), mode 600', async () => {
    const store = fileTokenStore(tokenFilePath(home.env))
    await store.set(tokenKey('https://a/', 'c1'), { accessToken: 't1', expiresAt: 1 })
    await store.set(tokenKey('https://a/', 'c2'), { accessToken: 't2', expiresAt: 2 })
    await store.set(tokenKey('https://b/', 'c1'), { accessToken: 't3', expiresAt: 3 })
    expect(await store.get(tokenKey('https://a/', 'c2'))).toEqual({ accessToken: 't2', expiresAt: 2 })
    expect(statSync(tokenFilePath(home.env)).mode & 0o777).toBe(0o600)
    expect(await store.delete(tokenKey('https://a/', 'c2'))).toBe(true)
    expect(await store.get(tokenKey('https://a/', 'c2'))).toBeUndefined()
    expect(await store.get(tokenKey('https://b/', 'c1'))).toEqual({ accessToken: 't3', expiresAt: 3 })
  })

  it('never reads or writes tokens in a directory other users can write', async () => {
    const path = tokenFilePath(home.env)
    mkdirSync(dirname(path), { recursive: true })
    chmodSync(dirname(path), 0o777)
    const planted = {
      [tokenKey('https://a/', 'c1')]: { accessToken: 'theirs', expiresAt: Date.now() + 60_000 },
    }
    writeFileSync(path, JSON.stringify(planted))
    const store = fileTokenStore(path)
    await expect(store.get(tokenKey('https://a/', 'c1'))).rejects.toThrow(/can be written by other users/)
    await expect(
      store.set(tokenKey('https://a/', 'c1'), { accessToken: 'mine', expiresAt: 1 }),
    ).rejects.toThrow(/can be written by other users/)
    expect(readFileSync(path, 'utf8')).not.toContain('mine')
  })
})
