/**
 * The key of the offline copies (one 256-bit AES key per user): in the OS keychain when one answers
 * (`@napi-rs/keyring`, as the token cache), else in a mode-600 file under the XDG config directory,
 * apart from the copies (which live under the XDG state directory). Created on first use.
 */
import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { keychainWanted } from '../client/token-store.js'
import { writeFileAtomic600 } from '../fs/atomic-file.js'
import { checkPrivateDirectory, ensurePrivateDirectory } from '../fs/private-directory.js'

const keychainService = 'vault-cli'
const keychainAccount = 'fallback-key'
const keyLength = 32

/** Where the key lives when there is no keychain: `$XDG_CONFIG_HOME/vault/fallback.key`. */
export function fallbackKeyFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config')
  return join(configHome, 'vault', 'fallback.key')
}

interface KeychainEntry {
  getPassword(): string | null
  setPassword(password: string): void
  deletePassword(): boolean
}

async function keychainEntry(env: NodeJS.ProcessEnv): Promise<KeychainEntry | undefined> {
  if (!keychainWanted(env)) return undefined
  try {
    const { Entry } = await import('@napi-rs/keyring')
    const entry = new Entry(keychainService, keychainAccount)
    entry.getPassword()
    return entry
  } catch {
    return undefined
  }
}

function decodeKey(text: string | null | undefined): Buffer | undefined {
  if (!text) return undefined
  const key = Buffer.from(text.trim(), 'base64')
  return key.length === keyLength ? key : undefined
}

async function readKeyFile(path: string): Promise<Buffer | undefined> {
  try {
    return decodeKey(await readFile(path, 'utf8'))
  } catch {
    return undefined
  }
}

/** The existing key, or undefined when none was ever made (or it is unreadable). */
export async function readFallbackKey(env: NodeJS.ProcessEnv = process.env): Promise<Buffer | undefined> {
  const entry = await keychainEntry(env)
  const fromKeychain = (() => {
    try {
      return decodeKey(entry?.getPassword())
    } catch {
      return undefined
    }
  })()
  if (fromKeychain) return fromKeychain
  const path = fallbackKeyFilePath(env)
  await checkPrivateDirectory(dirname(path), 'the key of the offline copies')
  return readKeyFile(path)
}

/** The key, created (keychain first, else the file) when there is none yet. */
export async function ensureFallbackKey(env: NodeJS.ProcessEnv = process.env): Promise<Buffer> {
  const existing = await readFallbackKey(env)
  if (existing) return existing
  const key = randomBytes(keyLength)
  const entry = await keychainEntry(env)
  try {
    if (entry) {
      entry.setPassword(key.toString('base64'))
      return key
    }
  } catch {
    // a keychain that refuses the write: the file below
  }
  const path = fallbackKeyFilePath(env)
  await ensurePrivateDirectory(dirname(path), 'the key of the offline copies')
  await writeFileAtomic600(path, `${key.toString('base64')}\n`)
  return key
}

/** Removes the key from the keychain and the file. */
export async function deleteFallbackKey(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    ;(await keychainEntry(env))?.deletePassword()
  } catch {
    // nothing stored there
  }
  await rm(fallbackKeyFilePath(env), { force: true })
}
