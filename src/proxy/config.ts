/**
 * Proxy configuration: raw settings (from flags or PROXY_* variables, read by settings.ts) are checked and
 * resolved into addresses, TLS material, a log level and the compiled rule list. Anything invalid
 * stops startup with a UsageError naming the setting (and the rule line) and the reason.
 */
import { readFileSync, realpathSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { UsageError } from '../errors.js'
import type { LogFormat } from './log.js'
import { frontendKey, parseClientsSetting } from './client-rules.js'
import { resolveRuleSets, type RuleSetConfig, type RuleText } from './rule-sets.js'
import { RuleSyntaxError, type Rule } from './rules.js'
import type { GuardSettings } from './guard.js'
import { resolveGuardSettings } from './guard-settings.js'
import { resolveLearnSettings, type LearnSettings } from './learn/learn-mode.js'
import type { ComposePolicy } from './compose-policy/policy.js'
import { composeRuleSetConfig } from './compose-policy/rule-set.js'

/** Settings as the user gave them; each is declared (flag, PROXY_* variable, help) in settings.ts. */
export interface ProxySettings {
  allowBindFrom?: string[]
  allowCap?: string[]
  allowImageLoad?: boolean
  composePolicy?: string[]
  guard?: string
  backendAddr?: string
  backendTlsCa?: string
  backendTlsCert?: string
  backendTlsKey?: string
  frontendAddrs?: string[]
  frontendTlsCa?: string
  frontendTlsCert?: string
  frontendTlsKey?: string
  logLevel?: string
  logFormat?: string
  rules?: string
  rulesFile?: string
  preset?: string
  noBuiltinRules?: boolean
  clients?: string
  redactEnv?: string
  shutdownGrace?: string
  maxConnections?: string
  learn?: string
  learnWarnEvery?: string
}

export const defaultBackendAddr = 'unix:///var/run/docker.sock'
export const defaultFrontendAddr = 'tcp://:2375'

export type UnixAddress = { kind: 'unix'; path: string; mode: number }
export type TcpAddress = { kind: 'tcp'; host: string; port: number }
export type ProxyAddress = UnixAddress | TcpAddress

export interface TlsMaterial {
  ca?: Buffer
  cert?: Buffer
  key?: Buffer
}

export interface ProxyConfig {
  backend: ProxyAddress
  backendTls?: TlsMaterial
  frontends: ProxyAddress[]
  frontendTls?: TlsMaterial
  logLevel: number
  logFormat: LogFormat
  ruleSets: RuleSetConfig
  shutdownGraceMs: number
  maxConnections: number
  guard: GuardSettings
  /** Learn mode (learn/learn-mode.ts), when PROXY_LEARN is set. */
  learn?: LearnSettings
  /** The compose policy, loaded by the caller (compose-policy/load.ts) when `composePolicy` is set. */
  composePolicy?: ComposePolicy
}

const tcpAddress = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9.-]*):([0-9]{1,5})$/
const unixAddress = /^unix:\/\/(\/[^?]*)(?:\?mode=([0-7]{3,4}))?$/

/** Parses `unix:///path[?mode=0660]` or `tcp://[host]:port`; throws UsageError naming `setting`. */
export function parseAddress(address: string, setting: string): ProxyAddress {
  const unix = unixAddress.exec(address)
  if (unix) return { kind: 'unix', path: unix[1]!, mode: parseInt(unix[2] ?? '660', 8) }
  const tcp = tcpAddress.exec(address)
  if (tcp && Number(tcp[2]) <= 65535) {
    return { kind: 'tcp', host: tcp[1]!.replace(/^\[|\]$/g, ''), port: Number(tcp[2]) }
  }
  throw new UsageError(`${setting} "${address}" is not an address`, {
    hint: 'use unix:///path/to/socket (optionally ?mode=0660) or tcp://host:port (tcp://:2375 for all interfaces)',
  })
}

function readSettingFile(path: string, setting: string): Buffer {
  try {
    return readFileSync(path)
  } catch (error) {
    throw new UsageError(
      `${setting} "${path}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      {
        hint: 'check the path and its permissions',
      },
    )
  }
}

function readTls(ca: string | undefined, cert: string | undefined, key: string | undefined, prefix: string) {
  if (!ca && !cert && !key) return undefined
  if (Boolean(cert) !== Boolean(key)) {
    throw new UsageError(`${prefix}_TLS_CERT and ${prefix}_TLS_KEY must be given together`)
  }
  return {
    ca: ca ? readSettingFile(ca, `${prefix}_TLS_CACERT`) : undefined,
    cert: cert ? readSettingFile(cert, `${prefix}_TLS_CERT`) : undefined,
    key: key ? readSettingFile(key, `${prefix}_TLS_KEY`) : undefined,
  }
}

/** The text of the rules file, which must be UTF-8. */
function readRulesFile(path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(readSettingFile(path, 'PROXY_RULES_FILE'))
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`PROXY_RULES_FILE "${path}" is not UTF-8 text`)
  }
}

/**
 * The rule sets and client selectors: built-ins (unless turned off) first in every set, then
 * PROXY_RULES, the rules file and PROXY_PRESET (the default list when none is given); `[sections]`,
 * `client` lines and PROXY_CLIENTS choose a set per client (rule-sets.ts). Throws UsageError.
 */
export function resolveRuleSetConfig(settings: ProxySettings): RuleSetConfig {
  const hint = 'a rule is "METHODS PATTERN", e.g. GET,HEAD %API_PREFIX_CONTAINERS%(/.*)?'
  if (settings.composePolicy?.length) return composeRuleSetConfig(settings)
  try {
    const texts: RuleText[] = []
    if (settings.rules) texts.push({ text: settings.rules, source: 'PROXY_RULES' })
    if (settings.rulesFile)
      texts.push({ text: readRulesFile(settings.rulesFile), source: `rules file ${settings.rulesFile}` })
    if (settings.redactEnv !== undefined && settings.redactEnv !== 'on' && settings.redactEnv !== 'off')
      throw new UsageError(`PROXY_REDACT_ENV "${settings.redactEnv}" is neither on nor off`)
    return resolveRuleSets({
      texts,
      preset: settings.preset,
      clients: settings.clients ? parseClientsSetting(settings.clients) : undefined,
      redactEnv: settings.redactEnv === undefined ? undefined : settings.redactEnv === 'on',
      noBuiltinRules: settings.noBuiltinRules,
    })
  } catch (error) {
    if (error instanceof RuleSyntaxError) throw new UsageError(`invalid rule: ${error.message}`, { hint })
    if (error instanceof UsageError) throw error
    if (error instanceof Error) throw new UsageError(error.message, { hint: 'see examples/proxy/README.md' })
    throw error
  }
}

/**
 * The rule list when every client gets the same rules (no client selectors): the rule set for
 * everyone. Throws UsageError when per-client rule sets are configured.
 */
export function resolveRules(settings: ProxySettings): Rule[] {
  const config = resolveRuleSetConfig(settings)
  if (!config.everyone)
    throw new UsageError('per-client rule sets are configured: there is no single rule list')
  return config.everyone.rules
}

function checkFrontendSelectors(config: RuleSetConfig, frontendAddrs: readonly string[]): void {
  const known = new Set(frontendAddrs.map(frontendKey))
  for (const selector of config.selectors) {
    if (selector.matcher.kind === 'frontend' && !known.has(frontendKey(selector.matcher.value))) {
      throw new UsageError(
        `${selector.source} line ${selector.line}: "client frontend ${selector.matcher.value}" is not a PROXY_FRONTEND_ADDR`,
        { hint: `the frontends are: ${frontendAddrs.join(', ')}` },
      )
    }
  }
}

/** A unix socket's path with its directory's symlinks, `//` and `.` resolved (as written when it does not exist yet). */
function socketFile(path: string): string {
  try {
    return resolve(realpathSync(dirname(path)), basename(path))
  } catch {
    return resolve(path)
  }
}

/**
 * Refuses two unix frontends on one socket file (`/run/a.sock` and `/run//a.sock`, or through a symlinked
 * directory): the second would replace the first's socket, and its clients would get the second's rule set.
 * And a unix frontend on the engine's own socket file: the proxy would relay to itself.
 */
function checkDistinctSockets(
  backendAddr: string,
  backend: ProxyAddress,
  frontendAddrs: readonly string[],
  frontends: readonly ProxyAddress[],
): void {
  const seen = new Map<string, string>()
  const engineFile = backend.kind === 'unix' ? socketFile(backend.path) : undefined
  frontends.forEach((frontend, index) => {
    if (frontend.kind !== 'unix') return
    const file = socketFile(frontend.path)
    if (file === engineFile) {
      throw new UsageError(
        `PROXY_FRONTEND_ADDR "${frontendAddrs[index]}" is the engine's socket, PROXY_BACKEND_ADDR "${backendAddr}"`,
        {
          hint: 'the proxy listens on a socket of its own; give its clients that path instead of the engine',
        },
      )
    }
    const earlier = seen.get(file)
    if (earlier !== undefined) {
      throw new UsageError(
        `PROXY_FRONTEND_ADDR "${frontendAddrs[index]}" is the socket of "${earlier}" (${file}) again`,
        { hint: 'give each unix frontend its own socket file' },
      )
    }
    seen.set(file, frontendAddrs[index]!)
  })
}

/** Checks and resolves settings into a configuration; throws UsageError on the first problem. */
export function resolveProxyConfig(settings: ProxySettings): ProxyConfig {
  const backendAddr = settings.backendAddr ?? defaultBackendAddr
  const backend = parseAddress(backendAddr, 'PROXY_BACKEND_ADDR')
  const frontendAddrs = settings.frontendAddrs?.length ? settings.frontendAddrs : [defaultFrontendAddr]
  const frontends = frontendAddrs.map((address) => parseAddress(address, 'PROXY_FRONTEND_ADDR'))
  checkDistinctSockets(backendAddr, backend, frontendAddrs, frontends)
  const ruleSets = resolveRuleSetConfig(settings)
  checkFrontendSelectors(ruleSets, frontendAddrs)
  const level = settings.logLevel ?? '6'
  if (!/^[0-7]$/.test(level)) {
    throw new UsageError(`PROXY_LOG_LEVEL "${level}" is not an integer from 0 to 7`, {
      hint: '7 debug, 6 info, 4 warning, 3 error',
    })
  }
  const logFormat = settings.logFormat ?? 'text'
  if (logFormat !== 'text' && logFormat !== 'json') {
    throw new UsageError(`PROXY_LOG_FORMAT "${logFormat}" is neither text nor json`)
  }
  const grace = settings.shutdownGrace ?? '10'
  if (!/^[0-9]+(\.[0-9]+)?$/.test(grace)) {
    throw new UsageError(`PROXY_SHUTDOWN_GRACE "${grace}" is not a number of seconds`)
  }
  const maxConnections = settings.maxConnections ?? '1024'
  if (!/^[1-9][0-9]{0,6}$/.test(maxConnections)) {
    throw new UsageError(`PROXY_MAX_CONNECTIONS "${maxConnections}" is not a positive integer`)
  }
  const frontendTls = readTls(
    settings.frontendTlsCa,
    settings.frontendTlsCert,
    settings.frontendTlsKey,
    'PROXY_FRONTEND',
  )
  if (frontendTls && !frontendTls.cert) {
    throw new UsageError('PROXY_FRONTEND_TLS_CACERT needs PROXY_FRONTEND_TLS_CERT and PROXY_FRONTEND_TLS_KEY')
  }
  const backendTls = readTls(
    settings.backendTlsCa,
    settings.backendTlsCert,
    settings.backendTlsKey,
    'PROXY_BACKEND',
  )
  if (backendTls && backend.kind !== 'tcp')
    throw new UsageError('backend TLS settings need a tcp:// PROXY_BACKEND_ADDR')
  return {
    backend,
    backendTls,
    frontends,
    frontendTls,
    logLevel: Number(level),
    logFormat,
    ruleSets,
    shutdownGraceMs: Math.round(Number(grace) * 1000),
    maxConnections: Number(maxConnections),
    guard: resolveGuardSettings(settings, backend.kind === 'unix' ? backend.path : undefined),
    learn: resolveLearnSettings(settings),
  }
}
