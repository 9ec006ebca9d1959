/** The `--profile` flag of the commands that load a compose project (render, run, rotate, doctor). */
import * as Flags from '@oclif/core/flags'

/** `--profile NAME` (repeatable): enable the services of these compose profiles (else `COMPOSE_PROFILES`). */
export const profileFlag = Flags.string({
  summary: 'enable the services of this compose profile (repeatable; default: COMPOSE_PROFILES)',
  multiple: true,
})
