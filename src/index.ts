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

// --- proxy (proxy helper): the socket proxy's rule engine and canonical-path step ---
/**
 * `parseRules(text, source)` turns rule text (`METHODS PATTERN` per line, `#`/`!` comments, `%VARIABLE%`s)
 * into compiled rules or throws a RuleSyntaxError naming the line and the reason; `decide(rules, method,
 * path)` matches an already-canonical path (first match wins, patterns anchored as `^(?:...)$`);
 * `decideTarget(rules, method, rawTarget)` first canonicalizes a raw request target (decode once, clean,
 * drop the query) exactly as the proxy does; `canonicalizeTarget` is that step alone. `presets`,
 * `builtinRulesText` and `exposureWarnings(rules)` give the ready-made rule sets and their risks;
 * `ruleVariables`/`expandVariables` the `%NAME%` table.
 */
export {
  parseRules,
  decide,
  decideTarget,
  describeRule,
  RuleSyntaxError,
  type Rule,
  type Decision,
  type TargetDecision,
} from './proxy/rules.js'
export {
  canonicalizeTarget,
  cleanPath,
  decodePathOnce,
  type CanonicalTarget,
} from './proxy/canonical-path.js'
export { ruleVariables, expandVariables, UnknownVariableError } from './proxy/variables.js'
export { presets, presetNames, builtinRulesText, exposureWarnings, type PresetName } from './proxy/presets.js'
// --- end proxy ---
