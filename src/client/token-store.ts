/**
 * The access-token cache, one entry per (domain, client id): the OS keychain when one is reachable
 * (`@napi-rs/keyring`, imported lazily), else a mode-600 JSON file under the XDG state directory.
 * VAULT_KEYCHAIN=off forces the file; a keychain that refuses a write falls back to the file too.
 * Only tokens are stored here, never the client secret.
 */
import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { writeFileAtomic600 } from '../fs/atomic-file.js'
import { checkPrivateDirectory, ensurePrivateDirectory } from '../fs/private-directory.js'

export interface CachedToken {
  accessToken: string
  /** Milliseconds since the epoch. */
  expiresAt: number
}

export type TokenStoreKind = 'keychain' | 'file'

export interface TokenStore {
  readonly kind: TokenStoreKind
  get(key: string): Promise<CachedToken | undefined>
  set(key: string, token: CachedToken): Promise<void>
  /** Removes the entry; true when there was one. */
  delete(key: string): Promise<boolean>
}

const keychainService = 'vault-cli'

/** The cache key of a (domain, client id) pair. */
export function tokenKey(domain: string, clientId: string): string {
  return `${domain}#${clientId}`
}

/** The path of the file store: `$XDG_STATE_HOME/vault/tokens.json`. */
export function tokenFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const stateHome = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state')
  return join(stateHome, 'vault', 'tokens.json')
}

/** The keychain store when one answers, else the file store. */
export async function openTokenStore(env: NodeJS.ProcessEnv = process.env): Promise<TokenStore> {
  const file = fileTokenStore(tokenFilePath(env))
  if (!keychainWanted(env)) return file
  try {
    const { Entry } = await import('@napi-rs/keyring')
    new Entry(keychainService, '__probe__').getPassword()
    return keychainTokenStore((key) => new Entry(keychainService, key), file)
  } catch {
    return file
  }
}

/** Whether to try the OS keychain: not when VAULT_KEYCHAIN=off, and on Linux only with a session bus. */
export function keychainWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.VAULT_KEYCHAIN === 'off' || env.VAULT_KEYCHAIN === '0') return false
  if (process.platform === 'linux') return Boolean(env.DBUS_SESSION_BUS_ADDRESS)
  return true
}

interface KeychainEntry {
  getPassword(): string | null
  setPassword(password: string): void
  deletePassword(): boolean
}

function keychainTokenStore(entry: (key: string) => KeychainEntry, fallback: TokenStore): TokenStore {
  return {
    kind: 'keychain',
    async get(key) {
      try {
        return parseToken(entry(key).getPassword()) ?? (await fallback.get(key))
      } catch {
        return fallback.get(key)
      }
    },
    async set(key, token) {
      try {
        entry(key).setPassword(JSON.stringify(token))
      } catch {
        await fallback.set(key, token)
      }
    },
    async delete(key) {
      const removed = (() => {
        try {
          return entry(key).deletePassword()
        } catch {
          return false
        }
      })()
      return (await fallback.delete(key)) || removed
    },
  }
}

/** A store in one JSON file (mode 600, directory 700), rewritten atomically on each change. */
export function fileTokenStore(path: string): TokenStore {
  const readAll = async (): Promise<Record<string, CachedToken>> => {
    await checkPrivateDirectory(join(path, '..'), 'the token cache')
    try {
      const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, CachedToken>) : {}
    } catch {
      return {}
    }
  }
  const writeAll = async (tokens: Record<string, CachedToken>) => {
    await ensurePrivateDirectory(join(path, '..'), 'the token cache')
    await writeFileAtomic600(path, `${JSON.stringify(tokens)}\n`)
  }
  return {
    kind: 'file',
    async get(key) {
      const tokens = await readAll()
      return Object.hasOwn(tokens, key) ? parseToken(JSON.stringify(tokens[key])) : undefined
    },
    async set(key, token) {
      const tokens = await readAll()
      tokens[key] = token
      await writeAll(tokens)
    },
    async delete(key) {
      const tokens = await readAll()
      if (!Object.hasOwn(tokens, key)) return false
      delete tokens[key]
      await writeAll(tokens)
      return true
    },
  }
}

function parseToken(text: string | null | undefined): CachedToken | undefined {
  if (!text) return undefined
  try {
    const token = JSON.parse(text) as Partial<CachedToken>
    if (typeof token.accessToken === 'string' && typeof token.expiresAt === 'number') {
      return { accessToken: token.accessToken, expiresAt: token.expiresAt }
    }
  } catch {
    return undefined
  }
  return undefined
}
