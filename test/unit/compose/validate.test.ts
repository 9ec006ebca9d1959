/** compose's consistency checks: references to undeclared things are errors with file and line. */
import { describe, expect, it } from 'vitest'
import { ComposeInputError } from '../../../src/compose/errors.js'
import { loadComposeProject } from '../../../src/compose/load.js'
import { checkProject } from '../../../src/compose/check.js'
import { loadStack, writeStack } from '../../helpers/compose-stack.js'
import { thrown } from '../../helpers/thrown.js'

const load = (text: string, collectProblems = false) =>
  loadStack({ 'compose.yaml': text }, { collectProblems }).project

describe('references are validated as compose validates them', () => {
  it.each([
    [
      'an undeclared named volume',
      'services:\n  app:\n    image: x\n    volumes:\n      - data:/data\n',
      /compose\.yaml:5: service "app" refers to undefined volume data: invalid compose project/,
    ],
    [
      'a long-syntax volume',
      'services:\n  app:\n    image: x\n    volumes:\n      - type: volume\n        source: data\n        target: /d\n',
      /compose\.yaml:5: service "app" refers to undefined volume data/,
    ],
    [
      'a depends_on target that does not exist',
      'services:\n  app:\n    image: x\n    depends_on:\n      - db\n',
      /compose\.yaml:5: service "app" depends on undefined service "db": invalid compose project/,
    ],
    [
      'a long depends_on target',
      'services:\n  app:\n    image: x\n    depends_on:\n      db:\n        condition: service_healthy\n',
      /compose\.yaml:5: service "app" depends on undefined service "db"/,
    ],
    [
      'an undeclared network',
      'services:\n  app:\n    image: x\n    networks: [front]\n',
      /compose\.yaml:4: service "app" refers to undefined network front/,
    ],
    [
      'an undeclared secret',
      'services:\n  app:\n    image: x\n    secrets: [token]\n',
      /compose\.yaml:4: service "app" refers to undefined secret token/,
    ],
    [
      'an undeclared config',
      'services:\n  app:\n    image: x\n    configs:\n      - source: conf\n',
      /compose\.yaml:5: service "app" refers to undefined config conf/,
    ],
    [
      'network_mode of a missing service',
      'services:\n  app:\n    image: x\n    network_mode: service:vpn\n',
      /compose\.yaml:4: service "vpn" not found for network_mode 'service:vpn'/,
    ],
    [
      'a service without image or build',
      'services:\n  app:\n    restart: always\n',
      /compose\.yaml:2: service "app" has neither an image nor a build context specified/,
    ],
  ])('refuses %s', (_, text, message) => {
    const error = thrown(() => load(text))
    expect(error).toBeInstanceOf(ComposeInputError)
    expect(error.message).toMatch(message)
  })

  it('accepts declared references, binds, anonymous volumes and the default network', () => {
    const project = load(
      [
        'services:',
        '  db:',
        '    image: postgres',
        '  app:',
        '    build: .',
        '    depends_on: [db]',
        '    networks: [default, back]',
        '    volumes: [data:/data, ./conf:/conf, /abs:/abs, ~/x:/x, /anonymous]',
        '    secrets: [token]',
        'networks: { back: {} }',
        'volumes: { data: {} }',
        'secrets: { token: { file: ./token } }',
      ].join('\n'),
    )
    expect(Object.keys(project.model.services as object)).toEqual(['app', 'db'])
  })

  it('does not take a masked bind source for a named volume (--mask)', () => {
    const cwd = writeStack({
      'compose.yaml': 'services:\n  db:\n    image: x\n    volumes: ["${DATA_DIR}/db:/var/lib/db"]\n',
    })
    const project = loadComposeProject({
      cwd,
      environment: {},
      secrets: { DATA_DIR: '/srv/data' },
      mask: true,
    })
    expect((project.model.services as Record<string, { volumes: string[] }>).db?.volumes).toEqual([
      '********/db:/var/lib/db',
    ])
  })

  it('lists every broken reference under --check, with file and line', () => {
    const project = load(
      'services:\n  app:\n    image: x\n    depends_on: [db]\n    volumes: [data:/d]\n',
      true,
    )
    const errors = checkProject(project).problems.filter((problem) => problem.code === 'invalid_reference')
    expect(errors.map((problem) => [problem.line, problem.service])).toEqual([
      [4, 'app'],
      [5, 'app'],
    ])
    expect(checkProject(project).ok).toBe(false)
  })
})
