/**
 * Which of `vault run`'s child streams are masked: by default each stream that is not a terminal;
 * --mask masks both, --no-mask neither. Kept free of stream code so an unmasked run loads nothing more.
 */
import { minimumMaskedLength } from '../text/mask-text.js'

export interface MaskPlanInput {
  /** --mask (true), --no-mask (false), or neither (undefined). */
  flag: boolean | undefined
  stdoutIsTerminal: boolean
  stderrIsTerminal: boolean
  /** stdout and stderr are one output (`2>&1`; src/masking/same-output.ts). */
  sameOutput?: boolean
  /** Every secret value the vault gave for this run (values stored with `secrets set --plain` left out). */
  values: string[]
}

export interface MaskPlan {
  stdout: boolean
  stderr: boolean
  /** Both are masked and are one output: the child gets one masked channel for both. */
  shared: boolean
  values: string[]
  /** The one line to print about values too short to mask, when there are any. */
  note?: string
}

/** The streams masked, and whether they share one channel. */
export type MaskedStreamSet = Pick<MaskPlan, 'stdout' | 'stderr' | 'shared'>

/**
 * Which streams are masked: each one that is not a terminal, unless --mask / --no-mask says; when
 * both are and they are one output, they share a channel.
 */
export function maskedStreams(input: Omit<MaskPlanInput, 'values'>): MaskedStreamSet {
  const stdout = input.flag ?? !input.stdoutIsTerminal
  const stderr = input.flag ?? !input.stderrIsTerminal
  return { stdout, stderr, shared: stdout && stderr && Boolean(input.sameOutput) }
}

/** How many channels the masked streams need: one when they share it, else one per masked stream. */
export function channelCount(streams: Pick<MaskPlan, 'stdout' | 'stderr'> & { shared?: boolean }): number {
  return streams.shared === true ? 1 : Number(streams.stdout) + Number(streams.stderr)
}

/** The plan for this run, or undefined when no stream is masked. */
export async function planMasking(input: MaskPlanInput): Promise<MaskPlan | undefined> {
  const { stdout, stderr, shared } = maskedStreams(input)
  if (!stdout && !stderr) return undefined
  const { maskableValues } = await import('./masked-stdio.js')
  const { masked, tooShort } = maskableValues(input.values)
  const noun = tooShort === 1 ? 'value is' : 'values are'
  const note =
    tooShort > 0
      ? `${tooShort} secret ${noun} shorter than ${minimumMaskedLength} characters and will not be masked in the output`
      : undefined
  return { stdout, stderr, shared, values: masked, note }
}
