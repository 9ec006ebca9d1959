/**
 * The library API of vault: the pure functions others may embed. Each area keeps its exports in
 * one marked block.
 */

// --- compose (render helper): interpolation, env files, the compose loader, the reference index ---
/**
 * `interpolate(template, lookup)` returns the string with compose's substitutions or throws an
 * InterpolationError with compose's message; `parseEnvFile(text, lookup)` reads an env file;
 * `loadComposeProject(options)` loads, merges and normalises a stack; `findReferences(project, name)`
 * lists where a variable is used.
 */
export {
  interpolate,
  scanReferences,
  InterpolationError,
  parseEnvFile,
  readEnvFile,
  loadComposeProject,
  discoverComposeFiles,
  findReferences,
  listVariables,
  checkProject,
  formatModel,
  staticSecretLayer,
  ComposeInputError,
  ComposeFileNotFoundError,
  RequiredVariableError,
  type Lookup,
  type VariableReference,
  type LoadComposeOptions,
  type ComposeProject,
  type ComposeProblem,
  type ReferenceLocation,
  type ReferenceSite,
  type VariableSummary,
  type CheckResult,
  type SecretLayer,
} from './compose/index.js'
// --- end compose ---
