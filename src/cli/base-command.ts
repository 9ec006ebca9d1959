/**
 * The base of every vault command: shared flags, the `--json` contract (the result object of run()),
 * and the mapping of thrown errors to one line on stderr plus a documented exit code.
 */
import { Command } from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'
import type * as Interfaces from '@oclif/core/interfaces'
import { parseMaxAge, type FallbackPolicy } from '../delivery/fallback-request.js'
import { NotConfiguredError } from '../errors.js'
import { serverSetting, settingText } from '../server/settings.js'
import { releaseHeldOutput } from '../masking/held-output.js'
import { formatErrorReport, reportError, type ErrorReport } from '../text/error-report.js'
import { escapeJsonText, escapeLines } from '../text/terminal-text.js'

export type InferredFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>
export type InferredArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** Connection flags for commands that talk to a vault server; each has its environment twin. */
export const connectionFlags = {
  domain: Flags.string({
    env: 'VAULT_DOMAIN',
    helpGroup: 'CONNECTION',
    summary: 'base URL of the vault server',
  }),
  insecure: Flags.boolean({
    env: 'VAULT_INSECURE',
    helpGroup: 'CONNECTION',
    summary: 'allow plain http:// to a host that is not loopback',
  }),
  project: Flags.string({
    env: 'VAULT_PROJECT_ID',
    helpGroup: 'CONNECTION',
    summary: 'project id',
  }),
  'stack-dir': Flags.directory({
    env: 'VAULT_STACK_DIR',
    helpGroup: 'CONNECTION',
    summary: "directory holding the stack's .env with the VAULT_ variables",
    default: '.',
  }),
}

/** The environment flag shared by every command that reads or writes secrets. */
export const envFlag = Flags.string({
  char: 'e',
  env: 'VAULT_ENV',
  summary: 'environment slug (dev, staging, prod, ...)',
})

/** The offline-copy flags of `run`, `export` and `render` (src/delivery/fallback.ts). */
export const fallbackFlags = {
  fallback: Flags.boolean({
    env: 'VAULT_FALLBACK',
    helpGroup: 'FALLBACK',
    summary: 'keep an encrypted offline copy; use it (with a warning) when the vault is unreachable',
  }),
  'fallback-max-age': Flags.string({
    env: 'VAULT_FALLBACK_MAX_AGE',
    helpGroup: 'FALLBACK',
    summary: 'refuse an offline copy older than this (90s, 30m, 12h, 7d, 2w)',
    default: '7d',
  }),
  'fallback-only': Flags.boolean({
    helpGroup: 'FALLBACK',
    summary: 'use the offline copy alone, without contacting the vault',
  }),
}

export abstract class BaseCommand<T extends typeof Command> extends Command {
  protected flags!: InferredFlags<T>
  protected args!: InferredArgs<T>

  /**
   * The offline-copy policy of a command with `fallbackFlags`, parsed from its flags (a bad
   * --fallback-max-age is a usage error here, before any session is built); undefined without
   * --fallback or --fallback-only.
   */
  protected fallbackPolicy(warn: (line: string) => void): FallbackPolicy | undefined {
    const flags = this.flags as { fallback?: boolean; 'fallback-only'?: boolean; 'fallback-max-age'?: string }
    if (!flags.fallback && !flags['fallback-only']) return undefined
    return {
      only: Boolean(flags['fallback-only']),
      maxAgeMs: parseMaxAge(flags['fallback-max-age'] ?? '7d'),
      warn: (line) => warn(`Warning: ${line}`),
    }
  }

  public override async init(): Promise<void> {
    await super.init()
    const { args, flags } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as InferredFlags<T>
    this.args = args as InferredArgs<T>
  }

  /** Writes human output (lines, tables) to stdout, control characters escaped for the terminal. */
  protected out(text: string): void {
    const safe = escapeLines(text)
    process.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`)
  }

  /** Writes progress, warnings and hints to stderr (never data), control characters escaped. */
  protected note(text: string): void {
    const safe = escapeLines(text)
    // under 2>&1 a masked child's line is completed first, never cut by this one
    releaseHeldOutput()
    process.stderr.write(safe.endsWith('\n') ? safe : `${safe}\n`)
  }

  /**
   * The --json output (results and failures): pretty JSON on stdout, with the control characters
   * JSON.stringify leaves raw (DEL, C1, bidi) escaped too, so the parsed value is unchanged.
   */
  protected override logJson(json: unknown): void {
    process.stdout.write(`${escapeJsonText(JSON.stringify(json, null, 2))}\n`)
  }

  /**
   * Any failure: under --json the `{ error }` object through oclif's toErrorJson/logJson hooks (stdout),
   * otherwise one line and a hint on stderr; then the documented exit code.
   */
  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    const report = reportError(error)
    if (this.jsonEnabled()) this.logJson(this.toErrorJson(error))
    else this.logToStderr(formatErrorReport(report))
    if (process.env.VAULT_DEBUG_STACK === '1' && error.stack)
      process.stderr.write(`${scrubStack(error.stack)}\n`)
    return this.exit(report.exitCode)
  }

  /** The --json shape of a failure: `{ error: { name, code, exitCode, message, hint } }`, never a cause. */
  protected override toErrorJson(error: unknown): { error: ErrorReport } {
    return { error: reportError(error) }
  }
}

function scrubStack(stack: string): string {
  return stack
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .join('\n')
}

/** A deprecated variable read by an admin command: one line on stderr. */
function warnDeprecated(line: string): void {
  process.stderr.write(`Warning: ${line}\n`)
}

/**
 * A server key setting of an admin command: its flag (which oclif filled from `VAULT_...`), else its
 * `_FILE` twin or earlier name, as `vault server` reads them (src/server/settings.ts).
 */
function adminSetting(flag: string | undefined, key: 'dbUrl' | 'encryptionKey'): string | undefined {
  const setting = serverSetting(key)
  if (flag !== undefined && flag !== process.env[setting.env]) return flag
  return settingText(setting, process.env, warnDeprecated) ?? flag
}

/** The store connection of the admin commands (`src/server/admin.ts`), from the `adminStoreFlags`. */
export function adminConnection(flags: { 'db-url'?: string; 'encryption-key'?: string }): {
  dbUrl?: string
  encryptionKey?: string
} {
  return {
    dbUrl: adminSetting(flags['db-url'], 'dbUrl'),
    encryptionKey: adminSetting(flags['encryption-key'], 'encryptionKey'),
  }
}

/** The `--db-url` of `vault backup` and `vault restore`, which open the database themselves. */
export function requireDbUrl(flags: { 'db-url'?: string }): string {
  const dbUrl = adminSetting(flags['db-url'], 'dbUrl')
  if (!dbUrl) {
    throw new NotConfiguredError('VAULT_DB_URL is not set', {
      hint: 'pass --db-url or set VAULT_DB_URL (or VAULT_DB_URL_FILE) to the vault database',
    })
  }
  return dbUrl
}

/** Flags of the server-side admin commands, which open the vault database directly. */
export const adminStoreFlags = {
  'db-url': Flags.string({
    env: 'VAULT_DB_URL',
    helpGroup: 'SERVER',
    summary: 'vault database: sqlite:///path/vault.db, a path, or postgres://... (also VAULT_DB_URL_FILE)',
  }),
  'encryption-key': Flags.string({
    env: 'VAULT_ENCRYPTION_KEY',
    helpGroup: 'SERVER',
    summary: 'the server key (64 hex characters); prefer VAULT_ENCRYPTION_KEY_FILE',
  }),
}

/** The OIDC trust of `vault identity create` and `vault identity update` (CI jobs' tokens). */
export const oidcTrustFlags = {
  'oidc-audience': Flags.string({
    helpGroup: 'OIDC',
    summary: "the tokens' aud, e.g. the vault's URL",
  }),
  'oidc-claim': Flags.string({
    helpGroup: 'OIDC',
    multiple: true,
    summary: 'a further claim the tokens must carry, key=value (repeatable)',
  }),
  'oidc-issuer': Flags.string({
    helpGroup: 'OIDC',
    summary: 'trust tokens of this issuer (https://..., or http://127.0.0.1:PORT)',
  }),
  'oidc-subject': Flags.string({
    helpGroup: 'OIDC',
    summary: "the tokens' sub: exact, or a glob whose * stays within one :-separated segment",
  }),
}

/** The OIDC trust input of the `oidcTrustFlags`. */
export function oidcTrustInput(flags: {
  'oidc-audience'?: string
  'oidc-claim'?: string[]
  'oidc-issuer'?: string
  'oidc-subject'?: string
}) {
  return {
    issuer: flags['oidc-issuer'],
    audience: flags['oidc-audience'],
    subject: flags['oidc-subject'],
    claims: flags['oidc-claim'],
  }
}

/** The project an admin command works on (id or name). */
export const adminProjectFlag = Flags.string({
  char: 'p',
  env: 'VAULT_PROJECT_ID',
  required: true,
  summary: 'project id or name',
})
