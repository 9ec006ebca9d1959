/**
 * `vault doctor`: the seed's troubleshooting table as checks, each pass, fail or skip with a hint:
 * the stack's credentials file (present, mode 600, ignored by git, nothing left in `.env`), the vault reachable (HTTP HEAD), the
 * credentials accepted, the environment existing, every variable the compose files require present
 * in the vault, a compose client (with docker-compose v1, every key of the compose files it refuses), and
 * the socket proxy when one is configured.
 */
import type { ConnectionSettings } from '../client/settings.js'
import { VaultError } from '../errors.js'

export type CheckStatus = 'pass' | 'fail' | 'skip'

export interface DoctorCheck {
  id: string
  title: string
  status: CheckStatus
  detail: string
  hint?: string
}

export interface DoctorOptions {
  settings: ConnectionSettings
  stackDir: string
  environment?: string
  composeFiles?: string[]
  /** Compose profiles to enable (`--profile`). */
  profiles?: string[]
  /** The socket proxy's URL (`tcp://host:2375` or `http://...`), when one is configured. */
  proxy?: string
  /** Move VAULT_ settings out of `.env` into the credentials file first (`--fix`). */
  fix?: boolean
}

export interface DoctorResult {
  ok: boolean
  checks: DoctorCheck[]
}

type Check = Omit<DoctorCheck, 'id' | 'title'>

/** Runs every check in order; later vault checks are skipped when an earlier one failed. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorResult> {
  const checks: DoctorCheck[] = []
  const add = (id: string, title: string, check: Check) => checks.push({ id, title, ...check })
  const { checkStackFiles } = await import('./stack-files.js')
  await checkStackFiles(
    options.stackDir,
    options.fix ?? false,
    Boolean(options.settings.clientSecret) &&
      !options.settings.credentialsFile &&
      !options.settings.stackEnvFile,
    add,
  )

  const { VaultApi } = await import('../client/vault-api.js')
  const { createSession } = await import('../client/session.js')
  let api: InstanceType<typeof VaultApi> | undefined
  try {
    api = new VaultApi(createSession(options.settings))
    const status = await api.head()
    add(
      'vault-reachable',
      'vault reachable (HTTP HEAD)',
      pass(`${options.settings.domain} answered ${status}`),
    )
  } catch (error) {
    api = undefined
    add(
      'vault-reachable',
      'vault reachable (HTTP HEAD)',
      failed(error, 'check VAULT_DOMAIN, the network path and the vault logs'),
    )
  }
  let secrets: Record<string, string> | undefined
  if (!api) {
    for (const [id, title] of [
      ['credentials', 'credentials accepted'],
      ['environment', 'environment exists'],
      ['required-variables', 'required variables in the vault'],
    ])
      add(id!, title!, skip('the vault is not reachable'))
  } else {
    const who = await api.whoami().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    )
    if ('error' in who) {
      add(
        'credentials',
        'credentials accepted',
        failed(who.error, 'check VAULT_CLIENT_ID / VAULT_CLIENT_SECRET, then vault login'),
      )
      add('environment', 'environment exists', skip('not authenticated'))
      add('required-variables', 'required variables in the vault', skip('not authenticated'))
    } else {
      add(
        'credentials',
        'credentials accepted',
        pass(`identity ${who.value.identity.name}, project ${who.value.project.name}`),
      )
      const environments = await api.environments().catch(() => [])
      const slugs = environments.map((environment) => environment.slug)
      const environment = options.environment ?? (slugs.length === 1 ? slugs[0] : undefined)
      if (!environment)
        add(
          'environment',
          'environment exists',
          skip(`no --env given; the identity reaches ${slugs.join(', ') || 'none'}: pass --env to check one`),
        )
      else if (!slugs.includes(environment))
        add(
          'environment',
          'environment exists',
          fail(`environment ${environment} not found`, `use one of ${slugs.join(', ') || '(none)'}`),
        )
      else add('environment', 'environment exists', pass(environment))
      if (environment && slugs.includes(environment)) {
        secrets = await api.listSecrets(environment).then(
          (list) => Object.fromEntries(list.map((secret) => [secret.name, secret.value])),
          () => undefined,
        )
      }
      add('required-variables', 'required variables in the vault', await requiredCheck(options, secrets))
    }
  }
  const { composeClientAnswers, detectComposeClient } = await import('../process/compose.js')
  const found = await detectComposeClient()
  // v1 is found on PATH without being run; the doctor asks it to answer
  const client = found?.version === 'v1' && !(await composeClientAnswers(found)) ? null : found
  add('compose-client', 'compose client present', composeCheck(client?.version))
  add(
    'compose-v1-keys',
    'compose files readable by the compose client',
    await v1KeysCheck(options, client?.version),
  )
  add('proxy', 'socket proxy reachable', await proxyCheck(options.proxy))
  return { ok: checks.every((check) => check.status !== 'fail'), checks }
}

function pass(detail: string): Check {
  return { status: 'pass', detail }
}
function fail(detail: string, hint?: string): Check {
  return { status: 'fail', detail, hint }
}
function skip(detail: string): Check {
  return { status: 'skip', detail }
}
function failed(error: unknown, hint: string): Check {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error)
  return fail(message, error instanceof VaultError && error.hint ? error.hint : hint)
}

async function requiredCheck(
  options: DoctorOptions,
  secrets: Record<string, string> | undefined,
): Promise<Check> {
  if (!secrets)
    return skip(options.environment ? 'the secrets could not be read' : 'no environment chosen (--env)')
  const { checkProject } = await import('../compose/index.js')
  let project
  try {
    project = await loadStackProject(options, { secrets })
  } catch (error) {
    return failed(error, 'check the compose files (vault render --check)')
  }
  const missing = checkProject(project).problems.filter((problem) => problem.code === 'required_variable')
  if (missing.length === 0)
    return pass(`${new Set(project.references.map((site) => site.name)).size} referenced variables resolved`)
  const names = [...new Set(missing.map((problem) => problem.variable ?? '?'))]
  return fail(`missing in the vault: ${names.join(', ')}`, 'vault secrets set <NAME> --env <slug>')
}

/** Loads the stack's compose project as the doctor's checks see it (every problem collected). */
async function loadStackProject(
  options: DoctorOptions,
  extra: Omit<Parameters<typeof import('../compose/index.js').loadComposeProject>[0], 'cwd'>,
) {
  const { loadComposeProject } = await import('../compose/index.js')
  return loadComposeProject({
    cwd: options.stackDir,
    files: options.composeFiles,
    profiles: options.profiles,
    collectProblems: true,
    ...extra,
  })
}

function composeCheck(version: 'v1' | 'v2' | undefined): Check {
  if (!version)
    return fail(
      'neither `docker compose` nor `docker-compose` answers',
      'install the compose plugin or docker-compose',
    )
  return pass(version === 'v2' ? 'docker compose (v2)' : 'docker-compose (v1)')
}

/** With docker-compose v1, every key of the compose files (includes too) that v1 refuses, with file and line. */
async function v1KeysCheck(options: DoctorOptions, version: 'v1' | 'v2' | undefined): Promise<Check> {
  if (version !== 'v1') return skip(version ? 'the client is compose v2' : 'no compose client')
  let project
  try {
    project = await loadStackProject(options, { referenceIndex: false, checkV1Keys: true })
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('no configuration file provided'))
      return skip('no compose file in the stack directory')
    return failed(error, 'check the compose files (vault render --check)')
  }
  const refused = project.problems.filter((problem) => problem.code === 'v1_refused_key')
  if (refused.length === 0) return pass('docker-compose v1 accepts every key')
  return fail(
    `${refused.length} key(s) docker-compose v1 refuses: ${refused.map((problem) => problem.message.replace(/ is not supported by .*$/, '')).join('; ')}`,
    'install compose v2, or remove those keys (vault render --check lists them)',
  )
}

async function proxyCheck(proxy: string | undefined): Promise<Check> {
  if (!proxy) return skip('no proxy configured (--proxy or ENGINE_HOST)')
  const url = `${proxy.replace(/^tcp:\/\//, 'http://').replace(/\/+$/, '')}/_ping`
  const { probeUrl } = await import('../client/probe.js')
  const result = await probeUrl(url)
  return result.ok
    ? pass(`${url} answered ${result.outcome}`)
    : fail(
        `${url}: ${result.outcome}`,
        'check that the service is on vnet-socket and ENGINE_HOST is tcp://socket-proxy:2375',
      )
}
