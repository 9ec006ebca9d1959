/**
 * The compose library: interpolation, env files, project loading, the reference index, preflight
 * checks and output. Other modules (the CLI's render, rotation) import from here only.
 */
export {
  interpolate,
  scanReferences,
  holdsReference,
  unsetVariableWarning,
  InterpolationError,
  type Lookup,
  type InterpolateOptions,
  type ReferenceOperator,
  type VariableReference,
} from './interpolate.js'
export {
  parseEnvFile,
  readEnvFile,
  type EnvFileEntry,
  type EnvFileOptions,
  type EnvFileResult,
} from './env-file.js'
export { loadComposeProject, discoverComposeFiles, type LoadComposeOptions } from './load.js'
export {
  findReferences,
  listVariables,
  servicesOf,
  usersOf,
  type ReferenceLocation,
  type VariableSummary,
} from './references.js'
export { checkProject, type CheckResult } from './check.js'
export { formatModel, escapeDollars, type RenderFormat } from './output.js'
export { maskText } from '../text/mask-text.js'
export { staticSecretLayer, type SecretLayer } from './secret-layer.js'
export {
  ComposeInputError,
  ComposeFileNotFoundError,
  NoComposeFileError,
  RequiredVariableError,
} from './errors.js'
export type { ComposeProblem, ComposeProject, ProblemLevel, ReferenceSite, VariableOrigin } from './types.js'
