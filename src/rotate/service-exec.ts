/**
 * The ServiceExec a rotator with `--rotator-service` uses: `compose exec -T` in the stack's project,
 * compose running with the vault's values in its environment (so the files interpolate as under `vault
 * run`), every value redacted from what compose prints.
 */
import { NotFoundError } from '../errors.js'
import { buildChildEnvironment } from '../process/child-env.js'
import type { ServiceExec } from './rotators/rotator.js'

/** A ServiceExec over the stack's compose project. */
export async function serviceExec(options: {
  stackDir: string
  composeFiles?: string[]
  secrets: Record<string, string>
  /** Secrets whose names control the host that may still reach compose (`--allow-env NAME`). */
  allowEnv?: readonly string[]
}): Promise<ServiceExec> {
  const { loadComposeProject } = await import('../compose/index.js')
  const compose = await import('../process/compose.js')
  const env = buildChildEnvironment(process.env, options.secrets, { allowEnv: options.allowEnv })
  const project = loadComposeProject({
    cwd: options.stackDir,
    files: options.composeFiles,
    environment: env,
    collectProblems: true,
    referenceIndex: false,
  })
  const client = await compose.detectComposeClient(env)
  if (!client)
    throw new NotFoundError('no compose client found (neither `docker compose` nor `docker-compose`)', {
      hint: 'install one, or use --rotator-url',
    })
  const target = {
    client,
    cwd: project.workingDir,
    files: project.files,
    env,
    secretValues: Object.values(options.secrets),
  }
  return (service, argv, { input }) => compose.execInService(target, service, argv, input)
}
