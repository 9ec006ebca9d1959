/**
 * Which of `vault run`'s child streams are masked: by default each stream that is not a terminal;
 * --mask masks both, --no-mask neither. Kept free of stream code so an unmasked run loads nothing more.
 */

export interface MaskPlanInput {
  /** --mask (true), --no-mask (false), or neither (undefined). */
  flag: boolean | undefined
  stdoutIsTerminal: boolean
  stderrIsTerminal: boolean
  /** Every value the vault gave for this run. */
  values: string[]
}

export interface MaskPlan {
  stdout: boolean
  stderr: boolean
  values: string[]
  /** The one line to print about values too short to mask, when there are any. */
  note?: string
}

/** Which streams are masked: each one that is not a terminal, unless --mask / --no-mask says. */
export function maskedStreams(input: Omit<MaskPlanInput, 'values'>): { stdout: boolean; stderr: boolean } {
  return { stdout: input.flag ?? !input.stdoutIsTerminal, stderr: input.flag ?? !input.stderrIsTerminal }
}

/** The plan for this run, or undefined when no stream is masked. */
export async function planMasking(input: MaskPlanInput): Promise<MaskPlan | undefined> {
  const { stdout, stderr } = maskedStreams(input)
  if (!stdout && !stderr) return undefined
  const { maskableValues, minimumMaskedLength } = await import('./masked-stdio.js')
  const { masked, tooShort } = maskableValues(input.values)
  const noun = tooShort === 1 ? 'value is' : 'values are'
  const note =
    tooShort > 0
      ? `${tooShort} secret ${noun} shorter than ${minimumMaskedLength} characters and will not be masked in the output`
      : undefined
  return { stdout, stderr, values: masked, note }
}
