/**
 * `vault render` as one domain function: load the stack once and produce what the chosen mode
 * shows (the rendered model, the preflight findings, the variables, or one variable's users).
 */
import { checkProject, type CheckResult } from './check.js'
import { loadComposeProject, type LoadComposeOptions } from './load.js'
import { composeV2Model } from './normalize-v2.js'
import { formatModel, type RenderFormat } from './output.js'
import { listVariables, usersOf, type ReferenceLocation, type VariableSummary } from './references.js'
import type { SecretLayer } from './secret-layer.js'
import type { ComposeProblem, ComposeProject } from './types.js'

export type RenderMode = 'config' | 'check' | 'variables' | 'who-uses'

export interface RenderRequest extends LoadComposeOptions {
  mode: RenderMode
  format?: RenderFormat
  /** The variable of `--who-uses`. */
  variable?: string
  /** The vault environment whose secrets are the top layer (`--env`); needs a secret layer. */
  vaultEnvironment?: string
  /** The compose client that will run the stack; with `v1`, `--check` reports the keys it refuses. */
  composeClient?: 'v1' | 'v2'
  /** `--check`: the values of the vault server's settings on this host, which no stack may hold. */
  serverSettings?: readonly string[]
}

export interface RenderedConfig {
  kind: 'config'
  name: string
  files: string[]
  envFiles: string[]
  /** The output text (YAML or JSON) with `$` written as `$$`. */
  text: string
  warnings: ComposeProblem[]
}

export interface CheckedStack extends CheckResult {
  kind: 'check'
}

export interface StackVariables {
  kind: 'variables'
  variables: VariableSummary[]
}

export interface VariableUsers {
  kind: 'who-uses'
  variable: string
  /** Its own references and, with --env, those of the templates naming it (`through`). */
  references: ReferenceLocation[]
}

export type RenderResult = RenderedConfig | CheckedStack | StackVariables | VariableUsers

/**
 * Loads the stack and returns the result of `request.mode`. With `vaultEnvironment`, the secrets
 * of that environment come from `secretLayer` and become the top layer of variables.
 */
export async function renderStack(request: RenderRequest, secretLayer?: SecretLayer): Promise<RenderResult> {
  const vault = request.vaultEnvironment !== undefined && secretLayer ? secretLayer : undefined
  const secrets = vault ? await vault.load(request.vaultEnvironment!) : request.secrets
  const plainNames = vault?.plainNames?.(request.vaultEnvironment!) ?? request.plainNames
  const environment = request.vaultEnvironment
  const templatesNaming = (name: string) =>
    environment !== undefined ? (secretLayer?.templatesNaming?.(environment, name) ?? []) : []
  return renderLoaded({ ...request, secrets, plainNames }, templatesNaming)
}

function renderLoaded(
  request: RenderRequest,
  templatesNaming: (name: string) => readonly string[],
): RenderResult {
  const collecting = request.mode !== 'config'
  const interpolating = request.mode === 'check' ? true : request.interpolate
  const project = loadComposeProject({
    ...request,
    interpolate: interpolating,
    collectProblems: collecting,
    referenceIndex: collecting,
    checkV1Keys: request.mode === 'check' && request.composeClient === 'v1',
  })
  switch (request.mode) {
    case 'check':
      return {
        kind: 'check',
        ...checkProject(project, { serverSettings: request.serverSettings, templatesNaming }),
      }
    case 'variables':
      return { kind: 'variables', variables: listVariables(project.references, project.origins) }
    case 'who-uses':
      return {
        kind: 'who-uses',
        variable: request.variable ?? '',
        references: usersOf(project, request.variable ?? '', templatesNaming(request.variable ?? '')),
      }
    case 'config': {
      const text = formatModel(
        printedModel(project, request.format ?? 'yaml'),
        request.format ?? 'yaml',
        request.interpolate !== false,
      )
      const warnings = project.problems.filter((problem) => problem.level === 'warning')
      return {
        kind: 'config',
        name: project.name,
        files: project.files,
        envFiles: project.envFiles,
        text,
        warnings,
      }
    }
  }
}

/** What `render` prints: compose v2's normalised model, or with `source` the loaded model itself. */
function printedModel(project: ComposeProject, format: RenderFormat): Record<string, unknown> {
  if (format === 'source') return project.model
  return composeV2Model(project.model, {
    projectName: project.name,
    workingDir: project.workingDir,
    json: format === 'json',
  })
}
