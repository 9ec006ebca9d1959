/**
 * Serves the repository's openapi.yaml (shipped in the package) as YAML and as JSON.
 */
import { readFile } from 'node:fs/promises'
import { packagePath } from '../../package-root.js'
import { yamlModule } from '../../text/yaml-module.js'

let cached: Promise<{ yaml: string; json: unknown }> | undefined

/** The OpenAPI document of the vault API, read once. */
export function openApiDocument(): Promise<{ yaml: string; json: unknown }> {
  cached ??= (async () => {
    const yaml = await readFile(packagePath('openapi.yaml'), 'utf8')
    const { parse } = yamlModule()
    return { yaml, json: parse(yaml) as unknown }
  })()
  return cached
}
