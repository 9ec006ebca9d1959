/**
 * The `--allow-env NAME` flag of every command that keeps some host variables from a stack
 * (src/process/withheld-variables.ts, host-variables.ts): one definition, so that it parses the same
 * everywhere. Repeat it or give a comma-separated list; it takes one value per occurrence, so a
 * command's arguments after it stay arguments (`vault run --allow-env PATH -- sh`).
 */
import * as Flags from '@oclif/core/flags'

/** What the flag lets through by default: the help line of commands whose wording is not their own. */
const defaultSummary = 'let a secret whose name controls the host (DOCKER_HOST, COMPOSE_*, ...) reach compose'

/** The `--allow-env` flag, with the command's own `summary` of what it lets through. */
export function allowEnvFlag(summary: string = defaultSummary) {
  return Flags.string({ summary, multiple: true, multipleNonGreedy: true, delimiter: ',' })
}
