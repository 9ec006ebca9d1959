/**
 * The `render --check` warning for vault secrets written into a command line (`command:`,
 * `entrypoint:`, `healthcheck: test:`), as in `redis-server --requirepass ${REDIS_PASSWORD}`.
 * Compose puts the value into the container's configuration as written: `docker ps --no-trunc` shows
 * it, and so do a container inspect's `Config.Cmd`, `Path` and `Args`, and the process lists of the
 * host and of `docker top`. The socket proxy's read-only presets mask it in inspect and `top` answers
 * only when the same value is also in the container's environment, and never in the container list.
 * A value the program reads from its environment or a compose secret is in none of them (a shell that
 * expands `$$NAME` into the command line puts it back into the process lists, where the proxy masks it).
 */
import type { ComposeProblem, ComposeProject } from './types.js'

const commandLineFields = ['command', 'entrypoint', 'healthcheck.test']

function isCommandLine(field: string): string | undefined {
  return commandLineFields.find((name) => field === name || field.startsWith(`${name}.`))
}

/** One warning per service and vault secret referenced from a command line. */
export function commandLineSecrets(project: ComposeProject): ComposeProblem[] {
  const warnings: ComposeProblem[] = []
  const seen = new Set<string>()
  for (const site of project.references) {
    const field = isCommandLine(site.field)
    if (!site.service || !field || project.origins[site.name] !== 'vault') continue
    if (seen.has(`${site.service}/${site.name}`)) continue
    seen.add(`${site.service}/${site.name}`)
    warnings.push({
      level: 'warning',
      code: 'secret_in_command_line',
      service: site.service,
      variable: site.name,
      file: site.file,
      line: site.line,
      message:
        `service ${site.service} writes vault secret ${site.name} into its ${field}, which docker ps --no-trunc, ` +
        `docker inspect (Config.Cmd, Args), docker top and the socket proxy's read-only clients (the container ` +
        `list) show: pass it through environment: or a compose secret and have the program read it from there`,
    })
  }
  return warnings
}
