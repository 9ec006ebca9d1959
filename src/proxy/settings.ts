/**
 * The proxy's settings, each declared once: its flag, its PROXY_* environment variable, its kind, its
 * default and its help text. `vault proxy serve` builds its oclif flags from this table, the lean serving
 * process reads its command line and environment with it, and examples/proxy/README.md documents it
 * (test/unit/proxy/settings.test.ts keeps the three in step). Loaded by the serving process: no oclif.
 */
import { delimiter } from 'node:path'
import { UsageError } from '../errors.js'
import type { ProxySettings } from './config.js'
import { presetNames } from './presets.js'

/**
 * How a setting's text becomes its value. `list`: split at commas and blanks; `paths`: file paths, the
 * variable split as compose splits COMPOSE_FILE (at COMPOSE_PATH_SEPARATOR, default the OS's path
 * separator, `:`), each flag one path.
 */
export type SettingKind = 'string' | 'file' | 'list' | 'paths' | 'boolean' | 'option'

/** The separator of a `paths` variable, as compose reads COMPOSE_FILE. */
export const pathSeparator = (env: NodeJS.ProcessEnv) => env.COMPOSE_PATH_SEPARATOR || delimiter

/** One setting: where it comes from and what `--help` says about it. */
export interface SettingSpec {
  key: keyof ProxySettings
  flag: string
  env: string
  kind: SettingKind
  summary: string
  /** Shown in help; applied by config.ts (the one place that resolves settings). */
  default?: string
  options?: readonly string[]
}

/** Every setting of `vault proxy serve`, in help order. */
export const proxySettingSpecs: readonly SettingSpec[] = [
  {
    key: 'allowBindFrom',
    flag: 'allow-bind-from',
    env: 'PROXY_ALLOW_BIND_FROM',
    kind: 'list',
    summary:
      'host directories containers may bind-mount from, repeatable or comma-separated (the engine socket never; default: none)',
  },
  {
    key: 'allowCap',
    flag: 'allow-cap',
    env: 'PROXY_ALLOW_CAP',
    kind: 'list',
    summary: "capabilities allowed in CapAdd besides Docker's default set, repeatable or comma-separated",
  },
  {
    key: 'allowImageLoad',
    flag: 'allow-image-load',
    env: 'PROXY_ALLOW_IMAGE_LOAD',
    kind: 'boolean',
    summary: 'allow image loads and imports (refused by the host-escape guard by default)',
  },
  {
    key: 'backendAddr',
    flag: 'backend-addr',
    env: 'PROXY_BACKEND_ADDR',
    kind: 'string',
    summary: 'engine address: unix:///path or tcp://host:port',
    default: 'unix:///var/run/docker.sock',
  },
  {
    key: 'backendTlsCa',
    flag: 'backend-tls-cacert',
    env: 'PROXY_BACKEND_TLS_CACERT',
    kind: 'file',
    summary: 'CA to verify a tcp:// engine',
  },
  {
    key: 'backendTlsCert',
    flag: 'backend-tls-cert',
    env: 'PROXY_BACKEND_TLS_CERT',
    kind: 'file',
    summary: 'client certificate for the engine',
  },
  {
    key: 'backendTlsKey',
    flag: 'backend-tls-key',
    env: 'PROXY_BACKEND_TLS_KEY',
    kind: 'file',
    summary: 'client key for the engine',
  },
  {
    key: 'clients',
    flag: 'clients',
    env: 'PROXY_CLIENTS',
    kind: 'string',
    summary:
      'per-client rule sets: "KIND VALUE RULESET" entries separated by ";", KIND source, cert or frontend (e.g. "source 10.0.0.0/8 monitoring")',
  },
  {
    key: 'composePolicy',
    flag: 'compose-policy',
    env: 'PROXY_COMPOSE_POLICY',
    kind: 'paths',
    summary:
      'compose files (merged in order, like -f) whose project is the only thing clients may create, start, stop and remove; they are rendered with the proxy\'s environment and the project\'s .env; replaces the rules. Repeat the flag per file; the variable separates files as COMPOSE_FILE does, with COMPOSE_PATH_SEPARATOR (default ":")',
  },
  {
    key: 'frontendAddrs',
    flag: 'frontend-addr',
    env: 'PROXY_FRONTEND_ADDR',
    kind: 'list',
    summary: 'listen addresses, repeatable or comma-separated: tcp://[host]:port or unix:///path?mode=0660',
    default: 'tcp://:2375',
  },
  {
    key: 'frontendTlsCa',
    flag: 'frontend-tls-cacert',
    env: 'PROXY_FRONTEND_TLS_CACERT',
    kind: 'file',
    summary: 'CA of client certificates (mutual TLS)',
  },
  {
    key: 'frontendTlsCert',
    flag: 'frontend-tls-cert',
    env: 'PROXY_FRONTEND_TLS_CERT',
    kind: 'file',
    summary: 'server certificate (TLS on tcp frontends)',
  },
  {
    key: 'frontendTlsKey',
    flag: 'frontend-tls-key',
    env: 'PROXY_FRONTEND_TLS_KEY',
    kind: 'file',
    summary: 'server key',
  },
  {
    key: 'guard',
    flag: 'guard',
    env: 'PROXY_GUARD',
    kind: 'option',
    options: ['on', 'off'],
    summary:
      'the host-escape guard: refuse request bodies that reach the host (privileged, host mounts and namespaces, capabilities, devices, ...); off only with a warning',
    default: 'on',
  },
  {
    key: 'learn',
    flag: 'learn',
    env: 'PROXY_LEARN',
    kind: 'string',
    summary:
      'learn mode: FORWARD what the rules and the guard would refuse (not what only --guard off lifts), log it, and write the smallest rules and guard allowances that allow the traffic seen to this file (mode 600) at exit',
  },
  {
    key: 'learnWarnEvery',
    flag: 'learn-warn-every',
    env: 'PROXY_LEARN_WARN_EVERY',
    kind: 'string',
    summary: 'seconds between the warnings (and checkpoints of the file) of learn mode, at least 1',
    default: '60',
  },
  {
    key: 'logFormat',
    flag: 'log-format',
    env: 'PROXY_LOG_FORMAT',
    kind: 'option',
    options: ['text', 'json'],
    summary: 'log line format',
    default: 'text',
  },
  {
    key: 'logLevel',
    flag: 'log-level',
    env: 'PROXY_LOG_LEVEL',
    kind: 'string',
    summary: '0-7: 7 debug (every request), 6 info, 4 warning (refusals), 3 error',
    default: '6',
  },
  {
    key: 'maxConnections',
    flag: 'max-connections',
    env: 'PROXY_MAX_CONNECTIONS',
    kind: 'string',
    summary: 'open client connections beyond which a new one is answered 503',
    default: '1024',
  },
  {
    key: 'noBuiltinRules',
    flag: 'no-builtin-rules',
    env: 'PROXY_NO_BUILTIN_RULES',
    kind: 'boolean',
    summary: 'do not allow ping, version and info by default',
  },
  {
    key: 'preset',
    flag: 'preset',
    env: 'PROXY_PRESET',
    kind: 'option',
    options: presetNames,
    summary: 'a named rule set (vault proxy rules --preset NAME prints it)',
  },
  {
    key: 'redactEnv',
    flag: 'redact-env',
    env: 'PROXY_REDACT_ENV',
    kind: 'option',
    options: ['on', 'off'],
    summary:
      'mask environment values in container, image, service, task and plugin inspect answers and in container process lists, and log and volume driver options (default: on with read-only, true-read-only, monitoring)',
  },
  {
    key: 'rules',
    flag: 'rules',
    env: 'PROXY_RULES',
    kind: 'string',
    summary: 'rules, one "METHODS PATTERN" per line',
  },
  { key: 'rulesFile', flag: 'rules-file', env: 'PROXY_RULES_FILE', kind: 'file', summary: 'a file of rules' },
  {
    key: 'shutdownGrace',
    flag: 'shutdown-grace',
    env: 'PROXY_SHUTDOWN_GRACE',
    kind: 'string',
    summary: 'seconds to let requests finish on SIGTERM',
    default: '10',
  },
]

/**
 * The value of one setting from its text: an environment variable's (`separator` splits a `paths`
 * one), or a flag's argument (`separator` undefined: one path).
 */
function settingValue(spec: SettingSpec, text: string, separator?: string): string | string[] | boolean {
  if (spec.kind === 'list') return text.split(/[\s,]+/).filter(Boolean)
  if (spec.kind === 'paths') return separator === undefined ? [text] : text.split(separator).filter(Boolean)
  if (spec.kind === 'boolean') return /^(1|true|yes)$/i.test(text)
  return text
}

function assign(settings: ProxySettings, spec: SettingSpec, value: string | string[] | boolean): void {
  const previous = settings[spec.key]
  ;(settings as Record<string, unknown>)[spec.key] =
    Array.isArray(previous) && Array.isArray(value) ? [...previous, ...value] : value
}

/** Reads the PROXY_* variables into settings (an empty variable counts as unset). */
export function settingsFromEnv(env: NodeJS.ProcessEnv): ProxySettings {
  const settings: ProxySettings = {}
  for (const spec of proxySettingSpecs) {
    const text = env[spec.env]
    if (text !== undefined && text !== '')
      assign(settings, spec, settingValue(spec, text, pathSeparator(env)))
  }
  return settings
}

const byFlag = new Map(proxySettingSpecs.map((spec) => [spec.flag, spec]))

/**
 * Reads `--flag value`, `--flag=value` and boolean `--flag` arguments into settings over those of the
 * environment (a flag given on the command line replaces its variable; a repeated list flag adds up).
 * Throws UsageError for an unknown flag, a missing value, or a stray argument.
 */
export function settingsFromArgs(args: readonly string[], env: NodeJS.ProcessEnv): ProxySettings {
  const fromEnv = settingsFromEnv(env)
  const fromArgs: ProxySettings = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const match = /^--([a-z-]+)(?:=([\s\S]*))?$/.exec(arg)
    const spec = match ? byFlag.get(match[1]!) : undefined
    if (!spec) throw new UsageError(`unexpected argument ${arg}`, { hint: 'see vault proxy serve --help' })
    let text = match![2]
    if (spec.kind === 'boolean') text ??= 'true'
    else if (text === undefined) {
      text = args[++i]
      if (text === undefined) throw new UsageError(`--${spec.flag} needs a value`)
    }
    if (spec.options && !spec.options.includes(text)) {
      throw new UsageError(`--${spec.flag} "${text}" is not one of ${spec.options.join(', ')}`)
    }
    assign(fromArgs, spec, settingValue(spec, text))
  }
  return { ...fromEnv, ...fromArgs }
}

/** The PROXY_* variables that carry these settings. */
export function settingsToEnv(settings: ProxySettings): Record<string, string> {
  const env: Record<string, string> = {}
  for (const spec of proxySettingSpecs) {
    const value = settings[spec.key]
    if (value === undefined || value === false) continue
    const separator = spec.kind === 'paths' ? delimiter : ','
    env[spec.env] = Array.isArray(value) ? value.join(separator) : value === true ? '1' : value
  }
  return env
}
