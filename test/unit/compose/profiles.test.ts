/** Profiles: --profile and COMPOSE_PROFILES select services as compose-go's WithProfiles does. */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadComposeProject, type LoadComposeOptions } from '../../../src/compose/load.js'
import { findReferences } from '../../../src/compose/references.js'
import { activeProfiles } from '../../../src/compose/profiles.js'
import { writeStack } from '../../helpers/compose-stack.js'

const stack = [
  'services:',
  '  web:',
  '    image: web',
  '    environment: { TOKEN: "${TOKEN}" }',
  '  debug:',
  '    image: debug',
  '    profiles: [debug]',
  '    environment: { TOKEN: "${TOKEN}", ONLY_DEBUG: "${DEBUG_PASSWORD:?set it}" }',
  '  mock:',
  '    image: mock',
  '    profiles: [dev, test]',
].join('\n')

function load(options: LoadComposeOptions = {}, files: Record<string, string> = {}) {
  const cwd = writeStack({ 'compose.yaml': stack, ...files })
  return loadComposeProject({ cwd, environment: { TOKEN: 't' }, collectProblems: true, ...options })
}

const names = (project: { model: Record<string, unknown> }) => Object.keys(project.model.services as object)

describe('profiles', () => {
  it('renders only services without profiles by default', () => {
    const project = load({ environment: { TOKEN: 't', DEBUG_PASSWORD: 'x' } })
    expect(names(project)).toEqual(['web'])
    expect(project.disabledServices).toEqual(['debug', 'mock'])
    expect(project.problems).toEqual([])
  })

  it('still reports a required variable of a disabled service: compose interpolates every service before it selects by profile, so `up` would fail', () => {
    const project = load()
    expect(project.problems.map((problem) => [problem.code, problem.variable])).toEqual([
      ['required_variable', 'DEBUG_PASSWORD'],
    ])
  })

  it('enables the services of every --profile given', () => {
    expect(names(load({ profiles: ['debug', 'test'], environment: { DEBUG_PASSWORD: 'x' } }))).toEqual([
      'debug',
      'mock',
      'web',
    ])
  })

  it('reads COMPOSE_PROFILES from the environment, then from the project .env', () => {
    expect(names(load({ environment: { COMPOSE_PROFILES: 'dev,debug', DEBUG_PASSWORD: 'x' } }))).toEqual([
      'debug',
      'mock',
      'web',
    ])
    expect(names(load({}, { '.env': 'COMPOSE_PROFILES=test\n' }))).toEqual(['mock', 'web'])
  })

  it('--profile wins over COMPOSE_PROFILES, and * enables everything', () => {
    expect(names(load({ profiles: ['test'], environment: { COMPOSE_PROFILES: 'debug' } }))).toEqual([
      'mock',
      'web',
    ])
    expect(names(load({ profiles: ['*'] }))).toHaveLength(3)
  })

  it('checks the required variables of an enabled profile service only', () => {
    const project = load({ profiles: ['debug'] })
    expect(project.problems.some((problem) => problem.variable === 'DEBUG_PASSWORD')).toBe(true)
  })

  it('leaves disabled services out of the reference index (so rotate never recreates them)', () => {
    expect(findReferences(load(), 'TOKEN').map((site) => site.service)).toEqual(['web'])
    expect(
      findReferences(
        load({ profiles: ['debug'], environment: { DEBUG_PASSWORD: 'x', TOKEN: 't' } }),
        'TOKEN',
      ).map((site) => site.service),
    ).toEqual(['debug', 'web'])
  })

  it('refuses a required dependency on a disabled service, as compose does', () => {
    const project = load(
      {},
      {
        'compose.yaml':
          'services:\n  app:\n    image: a\n    depends_on: [db]\n  db:\n    image: d\n    profiles: [db]\n',
      },
    )
    const errors = project.problems.filter((problem) => problem.code === 'invalid_reference')
    expect(errors[0]?.message).toMatch(
      /depends on undefined service "db" \("db" is not enabled by the active profiles/,
    )
  })

  it('skips an optional dependency (required: false) on a disabled service', () => {
    const project = load(
      {},
      {
        'compose.yaml':
          'services:\n  app:\n    image: a\n    depends_on:\n      db: { condition: service_started, required: false }\n  db:\n    image: d\n    profiles: [db]\n',
      },
    )
    expect(project.problems.filter((problem) => problem.level === 'error')).toEqual([])
    expect(names(project)).toEqual(['app'])
  })

  it('parses the profile list like compose (commas, blanks, duplicates)', () => {
    expect(activeProfiles(undefined, ' a, b,,a ')).toEqual(['a', 'b'])
    expect(activeProfiles([], 'a')).toEqual(['a'])
    expect(activeProfiles(['x'], 'a')).toEqual(['x'])
  })
})

describe('--profile reaches every command that loads the stack', () => {
  it('rotate plans to recreate a profile service only when its profile is enabled', async () => {
    const { planRestart } = await import('../../../src/rotate/restart.js')
    const stackDir = writeStack({ 'compose.yaml': stack })
    const secrets = { TOKEN: 't', DEBUG_PASSWORD: 'x' }
    expect((await planRestart({ name: 'TOKEN', secrets, stackDir })).services).toEqual(['web'])
    const withProfile = await planRestart({ name: 'TOKEN', secrets, stackDir, profiles: ['debug'] })
    expect(withProfile.services).toEqual(['debug', 'web'])
  })

  it('is declared on render, run, rotate and doctor', async () => {
    const manifest = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../../oclif.manifest.json', import.meta.url)), 'utf8'),
    ) as { commands: Record<string, { flags: Record<string, { multiple?: boolean }> }> }
    for (const command of ['render', 'run', 'rotate', 'doctor'])
      expect(manifest.commands[command]?.flags.profile?.multiple, command).toBe(true)
  })
})
