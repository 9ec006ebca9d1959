/**
 * The `yaml` package, loaded on first use: it is large and most commands never need it. It is a
 * CommonJS package, so it is loaded with require(), which gives the same module from the sources, the
 * compiled tree and the CLI bundle (a bundled dynamic import() of it would only have a default export).
 */
import { createRequire } from 'node:module'

type YamlModule = typeof import('yaml')
let loaded: YamlModule | undefined

/** The `yaml` module. */
export function yamlModule(): YamlModule {
  loaded ??= createRequire(import.meta.url)('yaml') as YamlModule
  return loaded
}
