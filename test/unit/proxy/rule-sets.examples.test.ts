import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { resolveRuleSets } from '../../../src/proxy/rule-sets.js'
import { decide } from '../../../src/proxy/rules.js'

const load = (name: string) => {
  const text = readFileSync(dir + name, 'utf8')
  return resolveRuleSets({ texts: [{ text, source: name }], noBuiltinRules: true }).everyone!
}

const dir = fileURLToPath(new URL('../../../examples/proxy/', import.meta.url))
const files = readdirSync(dir).filter((name) => name.endsWith('.rules'))

describe('examples/proxy rule files', () => {
  it('exist', () => {
    expect(files.length).toBeGreaterThanOrEqual(4)
  })

  it.each(files)('%s parses and refuses DELETE of volumes', (name) => {
    const { rules } = load(name)
    expect(rules.length).toBeGreaterThan(0)
    expect(decide(rules, 'DELETE', '/v1.41/volumes/data').allowed).toBe(false)
    expect(decide(rules, 'GET', '/v1.41/containers/json').allowed).toBe(true)
  })

  it.each(['homepage.rules', 'dozzle.rules', 'traefik.rules'])('%s masks the environment', (name) => {
    expect(load(name).redactEnv).toBe(true)
  })

  it('dozzle may read logs but not export', () => {
    const { rules } = load('dozzle.rules')
    expect(decide(rules, 'GET', '/v1.43/containers/web/logs').allowed).toBe(true)
    expect(decide(rules, 'GET', '/v1.43/containers/web/export').allowed).toBe(false)
    expect(decide(rules, 'POST', '/v1.43/containers/web/stop').allowed).toBe(false)
  })
})
