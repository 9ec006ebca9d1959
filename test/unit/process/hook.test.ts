import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runHook } from '../../../src/process/hook.js'

const work = mkdtempSync(join(tmpdir(), 'vault-hook-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const env = { PATH: process.env.PATH ?? '' }

describe('runHook', () => {
  it('gives the value on stdin only, with the name and environment in the environment', async () => {
    const out = join(work, 'seen')
    const script = `{ printf 'stdin=%s\\n' "$(cat)"; printf 'name=%s env=%s\\n' "$VAULT_ROTATE_NAME" "$VAULT_ROTATE_ENV"; env; printf 'args=%s\\n' "$*"; } > ${out}`
    expect(await runHook(script, 'CANARY-hook-value', { name: 'DB_PASSWORD', environment: 'dev', env })).toBe(
      0,
    )
    const seen = readFileSync(out, 'utf8')
    expect(seen).toContain('stdin=CANARY-hook-value\n')
    expect(seen).toContain('name=DB_PASSWORD env=dev\n')
    expect(seen.match(/CANARY-hook-value/g)).toHaveLength(1)
  })

  it.each([
    ['exit 0', 0],
    ['exit 5', 5],
    ['no-such-command-xyz', 127],
  ])('%j exits %i', async (script, code) => {
    expect(await runHook(script, 'v', { name: 'X', env })).toBe(code)
  })
})
