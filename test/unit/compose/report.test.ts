import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatRenderReport } from '../../../src/compose/report.js'
import { renderStack } from '../../../src/compose/render.js'

describe('render --variables', () => {
  it('has a SOURCE column: vault, .env, shell, default, unset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-vars-'))
    try {
      writeFileSync(
        join(dir, 'compose.yaml'),
        'services:\n  a:\n    image: x\n    environment:\n      A: ${FROM_VAULT}\n      B: ${FROM_FILE}\n      C: ${FROM_SHELL}\n      D: ${WITH_DEFAULT:-d}\n      E: ${NOWHERE}\n',
      )
      writeFileSync(join(dir, '.env'), 'FROM_FILE=1\n')
      const result = await renderStack({
        mode: 'variables',
        cwd: dir,
        environment: { FROM_SHELL: '1' },
        secrets: { FROM_VAULT: 'canary' },
      })
      if (result.kind !== 'variables') throw new Error('expected variables')
      expect(
        Object.fromEntries(result.variables.map((variable) => [variable.name, variable.source])),
      ).toEqual({
        FROM_VAULT: 'vault',
        FROM_FILE: '.env',
        FROM_SHELL: 'shell',
        WITH_DEFAULT: 'default',
        NOWHERE: 'unset',
      })
      const text = formatRenderReport(result, dir)
      expect(text.split('\n')[0]).toMatch(/SOURCE$/)
      expect(text).not.toContain('canary')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
