/**
 * Which container Env values `vault scan` expects: only the current value, in a container of this
 * stack's compose project whose service references the secret. The container's project and service come
 * from labels anyone starting a container can set, so a look-alike of another project, a service that does
 * not use the secret, or a past version is a finding. Real compose files in a scratch directory.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ScanFinding } from '../../../src/scan/findings.js'
import { stackExpectation } from '../../../src/scan/stack-expectation.js'

const root = mkdtempSync(join(tmpdir(), 'stack-expectation-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const finding = (secret: string, current = true): ScanFinding => ({
  secret,
  version: 2,
  current,
  encoding: 'plain',
  location: { source: 'container', container: 'c1', name: 'web', field: `Env.${secret}` },
})

describe('stackExpectation', () => {
  it('expects the current value only in the services of this project that reference the secret', async () => {
    const dir = mkdtempSync(join(root, 'shop-'))
    writeFileSync(
      join(dir, 'compose.yaml'),
      [
        'name: shop',
        'services:',
        '  db:',
        '    image: postgres',
        '    environment:',
        '      POSTGRES_PASSWORD: ${DB_PASSWORD}',
        '  web:',
        '    image: app',
        '    environment: [DB_PASSWORD, "API_URL=http://api"]',
        '  cache:',
        '    image: redis',
        '',
      ].join('\n'),
    )
    const notes: string[] = []
    const expects = await stackExpectation({
      stackDir: dir,
      secrets: { DB_PASSWORD: 'x' },
      note: (line) => notes.push(line),
    })
    expect(notes).toEqual([])
    expect(expects(finding('DB_PASSWORD'), { project: 'shop', service: 'db' })).toBe(true)
    expect(expects(finding('DB_PASSWORD'), { project: 'shop', service: 'web' })).toBe(true)
    expect(expects(finding('DB_PASSWORD'), { project: 'shop', service: 'cache' })).toBe(false)
    expect(expects(finding('DB_PASSWORD', false), { project: 'shop', service: 'db' })).toBe(false)
    expect(expects(finding('DB_PASSWORD'), { project: 'other', service: 'db' })).toBe(false)
    expect(expects(finding('DB_PASSWORD'), { project: 'shop' })).toBe(false)
    expect(expects(finding('DB_PASSWORD'), {})).toBe(false)
    expect(expects(finding('API_KEY'), { project: 'shop', service: 'db' })).toBe(false)
    expect(expects(finding('DB_PASSWORD'), { project: 'shop', service: '__proto__' })).toBe(false)
    expect(expects(finding('constructor'), { project: 'shop', service: 'db' })).toBe(false)
  })

  it('expects nothing, and says so, where the directory holds no compose stack', async () => {
    const notes: string[] = []
    const empty = mkdtempSync(join(root, 'empty-'))
    const expects = await stackExpectation({ stackDir: empty, secrets: {}, note: (line) => notes.push(line) })
    expect(expects(finding('DB_PASSWORD'), { project: 'empty', service: 'db' })).toBe(false)
    expect(notes).toEqual([`no compose stack in ${empty}: every container Env holding a value is reported`])
  })
})
