/**
 * Connection settings of the CLI: VAULT_DOMAIN, VAULT_PROJECT_ID, VAULT_CLIENT_ID and
 * VAULT_CLIENT_SECRET from flags, then the process environment, then the stack's credentials file
 * (`.vault/credentials`, which compose never reads), then, for stacks set up before it existed, the
 * stack's `.env` with a warning (compose reads `.env`, so an `env_file: .env` service would receive the
 * credentials; `vault doctor --fix` moves them). Warnings also when the file used is readable by group
 * or others or is not ignored by git.
 */
import { readFile, stat } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import { NotConfiguredError, UsageError } from '../errors.js'
import { credentialsFilePath } from './credentials-file.js'
import { shellWord } from '../text/shell-word.js'
import { isLocalhostName, isLoopbackHost } from './loopback.js'
import type { CiTokenSource } from './ci-token.js'

export interface ConnectionFlags {
  domain?: string
  project?: string
  insecure?: boolean
  'stack-dir'?: string
}

export interface ConnectionSettings {
  /** Base URL of the vault without a trailing slash, or undefined when none is configured. */
  domain?: string
  projectId?: string
  clientId?: string
  clientSecret?: string
  /** A CI job's OIDC token (environment only): logs in without a client secret. */
  ciToken?: CiTokenSource
  /** A human signed in with `vault login --user NAME` (VAULT_USER): its cached token is used instead. */
  user?: string
  insecure: boolean
  /** The stack's `.env` when it exists. */
  stackEnvFile?: string
  /** The stack's credentials file when it exists. */
  credentialsFile?: string
  /**
   * The stack file (`.vault/credentials` or `.env`) that alone names the domain: neither --domain nor
   * VAULT_DOMAIN in the environment does. A project directory from elsewhere can write it, so nothing
   * of the user's own (a client secret from the environment, a password) is sent there.
   */
  domainOnlyFrom?: string
}

export interface ResolvedSettings {
  settings: ConnectionSettings
  /** Warnings about the stack's `.env` (permissions, git), for stderr. */
  warnings: string[]
}

const settingNames = ['VAULT_DOMAIN', 'VAULT_PROJECT_ID', 'VAULT_CLIENT_ID', 'VAULT_CLIENT_SECRET'] as const

/** Resolves the settings: flags beat the environment, the environment beats the stack's `.env`. */
export async function resolveSettings(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedSettings> {
  const stackDir = resolve(flags['stack-dir'] ?? '.')
  const stackEnvFile = join(stackDir, '.env')
  const credentialsFile = credentialsFilePath(stackDir)
  const fromCredentials = await readStackEnv(credentialsFile, env)
  const fromFile = await readStackEnv(stackEnvFile, env)
  const pick = (name: (typeof settingNames)[number]) =>
    nonEmpty(env[name]) ?? nonEmpty(fromCredentials?.values[name]) ?? nonEmpty(fromFile?.values[name])
  const domainOnlyFrom =
    nonEmpty(flags.domain) || nonEmpty(env.VAULT_DOMAIN)
      ? undefined
      : nonEmpty(fromCredentials?.values.VAULT_DOMAIN)
        ? credentialsFile
        : nonEmpty(fromFile?.values.VAULT_DOMAIN)
          ? stackEnvFile
          : undefined
  refuseStackDomainForHostSecret(domainOnlyFrom, env)
  const settings: ConnectionSettings = {
    domain: trimSlash(nonEmpty(flags.domain) ?? pick('VAULT_DOMAIN')),
    projectId: nonEmpty(flags.project) ?? pick('VAULT_PROJECT_ID'),
    clientId: pick('VAULT_CLIENT_ID'),
    clientSecret: pick('VAULT_CLIENT_SECRET'),
    ciToken: ciTokenSource(env),
    user: nonEmpty(env.VAULT_USER),
    insecure: flags.insecure ?? false,
    stackEnvFile: fromFile ? stackEnvFile : undefined,
    credentialsFile: fromCredentials ? credentialsFile : undefined,
    domainOnlyFrom,
  }
  const warnings: string[] = []
  if (fromCredentials) warnings.push(...(await fileWarnings(credentialsFile, fromCredentials.mode)))
  const legacy = fromFile ? settingNames.filter((name) => fromFile.values[name] !== undefined) : []
  if (fromFile && legacy.length > 0) {
    warnings.push(
      `${stackEnvFile} holds ${legacy.join(', ')}: compose reads .env, so a service with env_file: .env receives them; run vault doctor --fix to move them to ${credentialsFile}`,
      ...(await fileWarnings(stackEnvFile, fromFile.mode)),
    )
  }
  return { settings, warnings }
}

/** The CI job's OIDC token source: VAULT_OIDC_TOKEN, or GitHub Actions' request pair; never from files. */
function ciTokenSource(env: NodeJS.ProcessEnv): CiTokenSource | undefined {
  const token = nonEmpty(env.VAULT_OIDC_TOKEN)
  const url = nonEmpty(env.ACTIONS_ID_TOKEN_REQUEST_URL)
  const bearer = nonEmpty(env.ACTIONS_ID_TOKEN_REQUEST_TOKEN)
  if (!token && !(url && bearer)) return undefined
  return {
    token,
    request: url && bearer ? { url, bearer } : undefined,
    audience: nonEmpty(env.VAULT_OIDC_AUDIENCE),
  }
}

/**
 * Refuses a client secret (or a CI job's OIDC token) from the process environment paired with a
 * domain from the stack's files:
 * a project directory from elsewhere (a cloned repository, a pull request in CI) could then set
 * VAULT_DOMAIN in its `.env` or `.vault/credentials` and receive the operator's secret with the first
 * token request. A domain from --domain or the environment, or a secret from the same files, is used
 * as before.
 */
function refuseStackDomainForHostSecret(domainOnlyFrom: string | undefined, env: NodeJS.ProcessEnv): void {
  const secret = nonEmpty(env.VAULT_CLIENT_SECRET)
    ? 'VAULT_CLIENT_SECRET'
    : ciTokenSource(env)
      ? 'the OIDC token (VAULT_OIDC_TOKEN or ACTIONS_ID_TOKEN_REQUEST_*)'
      : undefined
  if (!domainOnlyFrom || !secret) return
  throw new UsageError(
    `${secret} comes from the environment but VAULT_DOMAIN from ${domainOnlyFrom}: refusing to send the secret to a vault a project file names`,
    {
      hint: 'set VAULT_DOMAIN in the environment too (or pass --domain), or keep the secret in the same file as the domain',
    },
  )
}

/**
 * Refuses a human's password for a vault that only a stack file names (`domainOnlyFrom`): the human
 * names the vault they sign in to, with --domain or VAULT_DOMAIN, as for a client secret from the
 * environment.
 */
export function refuseStackDomainForPassword(settings: ConnectionSettings): void {
  if (!settings.domainOnlyFrom) return
  throw new UsageError(
    `VAULT_DOMAIN comes only from ${settings.domainOnlyFrom}: refusing to send a password to a vault a project file names`,
    {
      hint: `name the vault yourself: vault login --user NAME --domain ${shellWord(settings.domain ?? 'URL')} (or set VAULT_DOMAIN)`,
    },
  )
}

/** The domain as a URL, refusing plain http:// to a host that is not loopback unless insecure. */
export function vaultBaseUrl(settings: ConnectionSettings): URL {
  if (!settings.domain) {
    throw new NotConfiguredError('no vault domain is configured', {
      hint: "set VAULT_DOMAIN (flag --domain, the environment or the stack's .vault/credentials)",
    })
  }
  let url: URL
  try {
    url = new URL(settings.domain)
  } catch {
    throw new UsageError(`VAULT_DOMAIN is not a URL: ${JSON.stringify(settings.domain)}`, {
      hint: 'use a base URL such as https://vault.example.com',
    })
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`VAULT_DOMAIN must be an http(s) URL, got ${url.protocol}`)
  }
  const loopback = isLoopbackHost(url.hostname) || isLocalhostName(url.hostname)
  if (url.protocol === 'http:' && !loopback && !settings.insecure) {
    throw new UsageError(`refusing plain http:// to ${url.hostname}, which is not a loopback address`, {
      hint: 'use https://, or pass --insecure if the network path is trusted',
    })
  }
  return url
}

export { isLoopbackHost } from './loopback.js'

/**
 * True when requests to this base URL must reach a loopback address after resolution: plain http:// to
 * a `*.localhost` name without --insecure (the transport then refuses any other address).
 */
export function needsLoopbackResolution(url: URL, settings: ConnectionSettings): boolean {
  return url.protocol === 'http:' && isLocalhostName(url.hostname) && !settings.insecure
}

interface StackEnv {
  values: Record<string, string>
  mode: number
}

async function readStackEnv(path: string, env: NodeJS.ProcessEnv): Promise<StackEnv | undefined> {
  let text: string
  let mode: number
  try {
    const info = await stat(path)
    if (!info.isFile()) return undefined
    mode = info.mode & 0o777
    text = await readFile(path, 'utf8')
  } catch {
    return undefined
  }
  const { parseEnvFile } = await import('../compose/env-file.js')
  return { values: parseEnvFile(text, (name) => env[name], { file: path }), mode }
}

async function fileWarnings(path: string, mode: number): Promise<string[]> {
  const warnings: string[] = []
  if ((mode & 0o077) !== 0) {
    warnings.push(
      `${path} is readable by group or others (mode ${mode.toString(8)}): it holds the client secret; run chmod 600 ${shellWord(path)}`,
    )
  }
  const { gitIgnoreStatus } = await import('../process/git-ignore.js')
  if ((await gitIgnoreStatus(path)) === 'not-ignored') {
    warnings.push(
      `${path} is not ignored by git: add ${basename(path) === '.env' ? '.env' : '.vault/'} to .gitignore so the client secret is never committed`,
    )
  }
  return warnings
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

function trimSlash(value: string | undefined): string | undefined {
  return value?.replace(/\/+$/, '')
}
