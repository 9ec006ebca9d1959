/**
 * `vault run`: loads the environment's secrets, optionally narrows them to what the compose files
 * reference (and runs the render preflight), builds the child's environment and starts the child.
 */
import { basename } from 'node:path'
import { createSecretLayer } from '../delivery/secret-layer.js'
import type { ConnectionSettings } from '../client/settings.js'
import type { FallbackPolicy } from '../delivery/fallback-request.js'
import { buildChildEnvironment } from '../process/child-env.js'
import { runChild } from '../process/child.js'
import { channelCount, maskedStreams, planMasking, type MaskedStreamSet } from '../masking/mask-plan.js'
import type { OutputChannel } from '../masking/output-channel.js'
import { sameOutput } from '../masking/same-output.js'

export interface RunOptions {
  environment?: string
  preferHost?: boolean
  /** Secrets whose names control the host that may still be set (`--allow-env NAME`). */
  allowEnv?: readonly string[]
  onlyReferenced?: boolean
  check?: boolean
  composeFiles?: string[]
  /** Compose profiles to enable for --check / --only-referenced (`--profile`). */
  profiles?: string[]
  /** Where compose files are discovered for --check / --only-referenced (default: the working directory). */
  composeDir?: string
  /** --mask / --no-mask; undefined masks each output stream that is not a terminal. */
  mask?: boolean
  /** --fallback / --fallback-only (src/delivery/fallback.ts). */
  fallback?: FallbackPolicy
  warn: (line: string) => void
}

export interface PreparedRun {
  /** Starts the child and resolves with the exit code the CLI ends with; `stop` ends the child early. */
  start(command: string, args: string[], stop?: AbortSignal): Promise<number>
}

/** Loads the secrets and prepares the child's environment. */
export async function prepareRun(settings: ConnectionSettings, options: RunOptions): Promise<PreparedRun> {
  const environment = options.environment ?? ''
  const terminals = {
    flag: options.mask,
    stdoutIsTerminal: Boolean(process.stdout.isTTY),
    stderrIsTerminal: Boolean(process.stderr.isTTY),
    sameOutput: sameOutput(),
  }
  let channelsAhead = channelsForMasking(maskedStreams(terminals))
  const layer = createSecretLayer(settings, options.fallback)
  const fetched = await layer.load(environment)
  const plain = layer.plainNames?.(environment) ?? new Set<string>()
  let secrets = fetched
  if (options.onlyReferenced || options.check) {
    const { composePreflight } = await import('../process/compose-preflight.js')
    const preflight = await composePreflight({
      cwd: options.composeDir ?? process.cwd(),
      files: options.composeFiles,
      profiles: options.profiles,
      secrets,
      hostEnv: process.env,
      preferHost: options.preferHost,
      allowEnv: options.allowEnv,
      check: options.check ?? false,
    })
    for (const warning of preflight.warnings) options.warn(warning)
    if (options.onlyReferenced) {
      secrets = Object.fromEntries(Object.entries(secrets).filter(([name]) => preflight.referenced.has(name)))
    }
  }
  const masked = await planMasking({
    ...terminals,
    values: Object.entries(fetched)
      .filter(([name]) => !plain.has(name))
      .map(([, value]) => value),
  })
  if (masked?.note) options.warn(masked.note)
  const env = buildChildEnvironment(process.env, secrets, {
    preferHost: options.preferHost,
    allowEnv: options.allowEnv,
  })
  // a run that got this far is recorded (best effort, beside the child's start: awaited once the child
  // has ended or failed, so the registry file is never cut by the exit)
  const stackRecorded = import('../stack/stack-registry.js')
    .then(({ recordStack }) =>
      recordStack(options.composeDir ?? process.cwd(), {
        domain: settings.domain ?? '',
        projectId: settings.projectId ?? '',
        environment,
      }),
    )
    .catch(() => undefined)
  return {
    start: async (command, args, stop) => {
      try {
        return await startChild(command, args, stop)
      } finally {
        await stackRecorded
      }
    },
  }

  async function startChild(command: string, args: string[], stop?: AbortSignal): Promise<number> {
    const start = (finalArgs: string[]) => {
      const channels = channelsAhead
      channelsAhead = undefined
      return runChild(command, finalArgs, {
        env,
        masked: masked && { ...masked, channels, warn: options.warn },
        stop,
      })
    }
    if (basename(command) !== 'docker-compose') return start(args)
    const { runWithSecretFiles } = await import('../process/compose-secret-files.js')
    return runWithSecretFiles(command, args, env, start)
  }
}

/**
 * Starts making the masked streams' channels (src/masking/output-channel.ts) while the secrets are fetched
 * (the first child uses them); undefined when no stream will be masked. A failure to make them (a
 * MaskChannelError) is thrown when the child is started, not while the secrets are fetched.
 */
function channelsForMasking(streams: MaskedStreamSet): Promise<OutputChannel[] | undefined> | undefined {
  const count = channelCount(streams)
  if (count === 0) return undefined
  const channels = import('../masking/masked-stdio.js').then((stdio) =>
    stdio.openOutputChannels(count, process.env),
  )
  channels.catch(() => undefined)
  return channels
}
