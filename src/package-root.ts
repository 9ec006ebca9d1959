/**
 * Where the vault package lives on disk. Found by walking up from this module to the package.json named
 * "vault", so the answer holds for the sources, the compiled tree and the CLI bundle (whose chunks sit at
 * another depth) alike.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let cachedRoot: string | undefined

/** The directory holding vault's package.json. */
export function packageRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot
  let directory = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(directory, 'package.json')
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'vault'
    ) {
      cachedRoot = directory
      return directory
    }
    const parent = dirname(directory)
    if (parent === directory)
      throw new Error('vault package.json not found above ' + fileURLToPath(import.meta.url))
    directory = parent
  }
}

/** A path inside the vault package, e.g. `packagePath('openapi.yaml')`. */
export function packagePath(...segments: string[]): string {
  return join(packageRoot(), ...segments)
}
