/**
 * The stacks this machine has used, in `$XDG_STATE_HOME/vault/stacks.json`: recorded once per directory
 * and scope, the newest last, mode 600, at most 200; read back per scope. The file is only as good as
 * whatever last wrote it: a damaged file or entry is no entry, never a failure of `vault rotate` after
 * its rotation is done.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { otherStacks, recordStack, stackRegistryPath } from '../../../src/stack/stack-registry.js'

const root = mkdtempSync(join(tmpdir(), 'stack-registry-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let homes = 0
function home(): NodeJS.ProcessEnv {
  return { XDG_STATE_HOME: join(root, `state-${homes++}`), HOME: '/nonexistent' }
}

const scope = { domain: 'https://vault.example', projectId: 'p1', environment: 'prod' }

describe('stack registry', () => {
  it('lives next to the token cache, under XDG_STATE_HOME', () => {
    expect(stackRegistryPath({ XDG_STATE_HOME: '/s' })).toBe('/s/vault/stacks.json')
    expect(stackRegistryPath({ HOME: '/h' })).toBe('/h/.local/state/vault/stacks.json')
  })

  it('records each directory once per scope, privately, and gives the others of a scope', async () => {
    const env = home()
    await recordStack('/srv/a', scope, env)
    await recordStack('/srv/b/../b', scope, env)
    await recordStack('/srv/a', scope, env)
    await recordStack('/srv/c', { ...scope, environment: 'staging' }, env)
    expect(await otherStacks('/srv/a', scope, env)).toEqual(['/srv/b'])
    expect(await otherStacks('/srv/x', scope, env)).toEqual(['/srv/b', '/srv/a'])
    const path = stackRegistryPath(env)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const stacks = (JSON.parse(readFileSync(path, 'utf8')) as { stacks: unknown[] }).stacks
    expect(stacks).toHaveLength(3)
  })

  it('keeps the newest 200', async () => {
    const env = home()
    for (let index = 0; index < 205; index++) await recordStack(`/srv/s${index}`, scope, env)
    const others = await otherStacks('/none', scope, env)
    expect(others).toHaveLength(200)
    expect(others[0]).toBe('/srv/s5')
  })

  it.each([
    ['not JSON', '{'],
    ['null', 'null'],
    ['no list', '{"stacks": {"stackDir": "/srv/x"}}'],
    ['damaged entries', '{"stacks": [null, 5, {"stackDir": 7}, {"stackDir": "/srv/x"}]}'],
    ['inherited fields', '{"stacks": [{"__proto__": {"stackDir": "/srv/x"}}]}'],
  ])('reads a file with %s as holding no entry, and records over it', async (_, text) => {
    const env = home()
    const path = stackRegistryPath(env)
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, text)
    expect(await otherStacks('/srv/a', scope, env)).toEqual([])
    await recordStack('/srv/a', scope, env)
    expect(await otherStacks('/srv/b', scope, env)).toEqual(['/srv/a'])
  })

  it('never fails a command when the state home cannot be written', async () => {
    const file = join(root, 'a-file')
    writeFileSync(file, '')
    const env = { XDG_STATE_HOME: join(file, 'below') }
    await expect(recordStack('/srv/a', scope, env)).resolves.toBeUndefined()
    expect(await otherStacks('/srv/b', scope, env)).toEqual([])
  })
})
