/**
 * The `render --check` hint for secrets kept out of `docker inspect`: a service whose image is known
 * to read `<NAME>_FILE` (the official database and application images) but which takes a vault
 * value through `environment:` is pointed at compose's `secrets:` with an `environment:` source.
 */
import type { ComposeProblem, ComposeProject } from './types.js'

/** Images (official, by repository name) and the variables they also read from `<NAME>_FILE`. */
const fileVariablesByImage: Record<string, string[]> = {
  postgres: ['POSTGRES_PASSWORD', 'POSTGRES_USER', 'POSTGRES_DB', 'POSTGRES_INITDB_ARGS'],
  mysql: ['MYSQL_ROOT_PASSWORD', 'MYSQL_PASSWORD', 'MYSQL_USER', 'MYSQL_DATABASE'],
  mariadb: [
    'MARIADB_ROOT_PASSWORD',
    'MARIADB_PASSWORD',
    'MARIADB_USER',
    'MARIADB_DATABASE',
    'MYSQL_ROOT_PASSWORD',
    'MYSQL_PASSWORD',
  ],
  mongo: ['MONGO_INITDB_ROOT_USERNAME', 'MONGO_INITDB_ROOT_PASSWORD'],
  wordpress: ['WORDPRESS_DB_PASSWORD', 'WORDPRESS_DB_USER', 'WORDPRESS_DB_NAME', 'WORDPRESS_AUTH_KEY'],
  nextcloud: ['POSTGRES_PASSWORD', 'MYSQL_PASSWORD', 'NEXTCLOUD_ADMIN_PASSWORD', 'REDIS_HOST_PASSWORD'],
}

/** The repository name of an image reference: `docker.io/library/postgres:16` -> `postgres`. */
export function imageRepository(image: string): string {
  const withoutDigest = image.split('@')[0]!
  const lastSlash = withoutDigest.lastIndexOf('/')
  const name = withoutDigest.slice(lastSlash + 1)
  return name.split(':')[0]!.toLowerCase()
}

/** One info problem per service variable that could be a `*_FILE` secret instead. */
export function fileSecretHints(project: ComposeProject): ComposeProblem[] {
  const services = (project.model.services ?? {}) as Record<string, { image?: unknown }>
  const hints: ComposeProblem[] = []
  const seen = new Set<string>()
  for (const site of project.references) {
    if (!site.service || !site.field.startsWith('environment.')) continue
    if (project.origins[site.name] !== 'vault') continue
    const image = services[site.service]?.image
    if (typeof image !== 'string') continue
    const key = site.field.slice('environment.'.length)
    if (!fileVariablesByImage[imageRepository(image)]?.includes(key)) continue
    if (seen.has(`${site.service}/${key}`)) continue
    seen.add(`${site.service}/${key}`)
    hints.push({
      level: 'info',
      code: 'secret_in_environment',
      service: site.service,
      variable: site.name,
      file: site.file,
      line: site.line,
      message:
        `service ${site.service} takes ${key} through environment:, where docker inspect shows it; ` +
        `${imageRepository(image)} reads ${key}_FILE: declare a compose secret with environment: ${site.name} ` +
        `and set ${key}_FILE=/run/secrets/<secret>`,
    })
  }
  return hints
}
