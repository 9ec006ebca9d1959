/** The YAML files of the test fixtures: the hand-written compose fixtures and the real-project corpus. */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** test/fixtures/compose/: compose files written for the tests. */
export const composeFixtures = fileURLToPath(new URL('../fixtures/compose/', import.meta.url))

/** test/fixtures/compose-corpus/: real projects' compose files, each with its SOURCE. */
export const composeCorpus = fileURLToPath(new URL('../fixtures/compose-corpus/', import.meta.url))

/** Every `.yml` / `.yaml` file under `directory`, recursively. */
export function yamlFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name)
    if (statSync(path).isDirectory()) return yamlFiles(path)
    return /\.ya?ml$/.test(name) ? [path] : []
  })
}
