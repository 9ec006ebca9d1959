/**
 * Shapes shared by the compose modules: where a variable is referenced, the problems a load
 * collects for `--check`, and the project a load returns.
 */
import type { ReferenceOperator } from './interpolate.js'

/** One reference to a variable at one place in a compose or env file. */
export interface ReferenceSite {
  name: string
  operator: ReferenceOperator
  /** The raw default / message / alternate word ('' for a plain reference). */
  word: string
  required: boolean
  /** The service whose definition holds it ('' for a top-level field or a project env file). */
  service: string
  /** The path inside the service (`environment.DB_PASSWORD`, `image`), or the top-level path. */
  field: string
  file: string
  line?: number
}

export type ProblemLevel = 'error' | 'warning' | 'info'

/** One finding of a load or of `vault render --check`; never holds a secret value. */
export interface ComposeProblem {
  level: ProblemLevel
  code:
    | 'required_variable'
    | 'invalid_template'
    | 'unset_variable'
    | 'unused_secret'
    | 'dollar_in_value'
    | 'invalid_value'
    | 'invalid_reference'
    | 'v1_refused_key'
    | 'vault_credential'
    | 'shadowed_by_vault'
    | 'secret_in_environment'
    | 'secret_in_command_line'
    | 'secret_not_from_vault'
    | 'server_setting_in_stack'
    | 'copied_secret'
    | 'copy_not_checked'
  message: string
  variable?: string
  service?: string
  file?: string
  line?: number
}

/** Where the value of a variable came from (highest layer that had it). */
export type VariableOrigin = 'vault' | 'environment' | 'env-file'

/** The result of loading a stack: the merged model plus what `--check`, `--variables` and `--who-uses` need. */
export interface ComposeProject {
  name: string
  workingDir: string
  /** The compose files that were loaded, in order (absolute). */
  files: string[]
  /** Compose files read through `include` or `extends` (absolute). */
  includedFiles: string[]
  /** The project env files that were read, in order (absolute). */
  envFiles: string[]
  /** The active profiles. */
  profiles: string[]
  /** Services left out because none of their profiles is active. */
  disabledServices: string[]
  /** The merged, interpolated and normalised model (`$` not yet escaped). */
  model: Record<string, unknown>
  references: ReferenceSite[]
  problems: ComposeProblem[]
  /** The layered variables the files were interpolated with. */
  variables: Record<string, string>
  origins: Record<string, VariableOrigin>
  /** Names whose value from a lower layer was replaced by a higher one: name -> the lower layer. */
  shadowed: Record<string, VariableOrigin>
}
