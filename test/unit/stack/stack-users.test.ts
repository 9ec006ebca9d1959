/**
 * loadStackForUsers, the load behind `secrets init` and `secrets import`: "no compose file" (then init
 * plans the example stack's preset) only when there is none, never when a file the compose file names
 * is missing. Authentik's published stack has `env_file: .env` in three services, a file its install
 * guide creates with the passwords; a user keeping them in the vault has none yet, and init planned
 * the example stack's DATA_DIR, GATEWAY_DOMAIN ... for it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ComposeFileNotFoundError } from '../../../src/compose/index.js'
import { loadStackForUsers } from '../../../src/stack/stack-users.js'

const dirs: string[] = []
const stack = (files: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-stack-users-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('loadStackForUsers', () => {
  it('is undefined for a directory without a compose file', async () => {
    expect(await loadStackForUsers({ stackDir: stack({ 'notes.txt': '' }) })).toBeUndefined()
  })

  it('refuses a stack whose env_file is missing, naming the service and what to do', async () => {
    const dir = stack({
      'docker-compose.yml':
        'services:\n  server:\n    image: x\n    environment:\n      KEY: ${SECRET_KEY:?required}\n    env_file:\n      - .env\n',
    })
    const error = await loadStackForUsers({ stackDir: dir }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect(error).toBeInstanceOf(ComposeFileNotFoundError)
    expect((error as Error).message).toBe(`service server: env file ${join(dir, '.env')} not found`)
    expect((error as ComposeFileNotFoundError).hint).toMatch(/create the file \(an empty one will do\)/)
  })

  it('loads the same stack once the env file exists, empty', async () => {
    const dir = stack({
      'docker-compose.yml': 'services:\n  server:\n    image: x\n    env_file:\n      - .env\n',
      '.env': '',
    })
    expect(Object.keys((await loadStackForUsers({ stackDir: dir }))!.model.services as object)).toEqual([
      'server',
    ])
  })
})
