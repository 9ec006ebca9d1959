/**
 * Environment variables that control the host rather than configure an application: where the engine
 * is (`DOCKER_HOST`), what a shell or an interpreter runs at start-up (`BASH_ENV`, `NODE_OPTIONS`,
 * `LD_PRELOAD`, ...), where commands are found (`PATH`). A vault secret with such a name would hand
 * whoever may write one secret the deploy machine, so `vault run` and `vault export --format shell`
 * refuse them unless each is allowed by name (`--allow-env NAME`).
 */
import { AuthError } from '../errors.js'

/** Names that control the host exactly. */
const exactNames = new Set([
  'PATH',
  'HOME',
  'SHELL',
  'IFS',
  'ENV',
  'BASH_ENV',
  'PS4',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'CDPATH',
  'GLOBIGNORE',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_EXTRA_CA_CERTS',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'GCONV_PATH',
  'HOSTALIASES',
  'KUBECONFIG',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'LESSOPEN',
  'LESSCLOSE',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
])

/** Prefixes of families of names that control the host. */
const prefixes = [
  'LD_',
  'DYLD_',
  'BASH_FUNC_',
  'PYTHON',
  'PERL5',
  'RUBY',
  'GIT_',
  'SSH_',
  'DOCKER_',
  'COMPOSE_',
  'VAULT_',
]

/** True when a variable of this name controls the host (the match ignores case: `http_proxy` too). */
export function controlsHost(name: string): boolean {
  const upper = name.toUpperCase()
  return exactNames.has(upper) || prefixes.some((prefix) => upper.startsWith(prefix))
}

/** A secret whose name controls the host would reach a process, and it was not allowed by name. */
export class HostVariableError extends AuthError {
  override name = 'HostVariableError'
  override readonly code: string = 'ERR_HOST_VARIABLE'
  readonly variables: readonly string[]

  constructor(variables: readonly string[]) {
    const list = variables.join(', ')
    super(
      `refusing to set ${list} from the vault: ${variables.length > 1 ? 'these names control' : 'this name controls'} the host, not the application`,
      {
        hint: `delete or rename the secret; if it is meant to be there, pass ${variables.map((name) => `--allow-env ${name}`).join(' ')}`,
      },
    )
    this.variables = variables
  }
}

/** Throws HostVariableError naming every secret that controls the host and is not in `allowed`. */
export function refuseHostVariables(names: Iterable<string>, allowed: Iterable<string> = []): void {
  const allowedSet = new Set(allowed)
  const refused = [...names].filter((name) => controlsHost(name) && !allowedSet.has(name)).sort()
  if (refused.length > 0) throw new HostVariableError(refused)
}
