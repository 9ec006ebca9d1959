import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadComposeProject } from '../../../src/compose/load.js'
import { findReferences, listVariables } from '../../../src/compose/references.js'
import { writeStack } from '../../helpers/compose-stack.js'

const files = {
  'compose.yaml': [
    'services:',
    '  base:',
    '    image: "base:${TAG:-1}"',
    '    environment:',
    '      DB_PASSWORD: ${DB_PASSWORD:?required}',
    '  web:',
    '    extends: base',
    '    labels:',
    '      - "auth=${DB_PASSWORD}"',
    '    command: ["run", "$DB_PASSWORD"]',
    '    entrypoint: "${ENTRY:-/init}"',
    '    healthcheck:',
    '      test: ["CMD", "check", "${DB_PASSWORD}"]',
    '    env_file: web.env',
    '  other:',
    '    image: other',
    '    environment:',
    '      - DB_PASSWORD',
    '      - OPTIONAL=${OPTIONAL:+on}',
  ].join('\n'),
  'web.env': '# web\nURL=postgres://u:${DB_PASSWORD}@db\n',
}

describe('findReferences', () => {
  it('lists every service and field that references a variable, extends included', () => {
    const cwd = writeStack(files)
    const project = loadComposeProject({ cwd, environment: { DB_PASSWORD: 'p' } })
    const compose = join(cwd, 'compose.yaml')
    expect(findReferences(project, 'DB_PASSWORD')).toEqual([
      { service: 'base', field: 'environment.DB_PASSWORD', file: compose, line: 5 },
      { service: 'other', field: 'environment.DB_PASSWORD', file: compose },
      { service: 'web', field: 'environment.DB_PASSWORD', file: compose, line: 5 },
      { service: 'web', field: 'labels.auth', file: compose, line: 9 },
      { service: 'web', field: 'command.1', file: compose, line: 10 },
      { service: 'web', field: 'healthcheck.test.2', file: compose, line: 13 },
      { service: 'web', field: 'env_file', file: join(cwd, 'web.env'), line: 2 },
    ])
  })

  it('finds references of a stack that does not interpolate (required variables unset)', () => {
    const cwd = writeStack(files)
    const project = loadComposeProject({ cwd, environment: {}, interpolate: false })
    expect(findReferences(project, 'ENTRY')).toEqual([
      { service: 'web', field: 'entrypoint', file: join(cwd, 'compose.yaml'), line: 11 },
    ])
    expect(findReferences(project, 'NOBODY')).toEqual([])
  })
})

describe('listVariables', () => {
  it('lists each variable with its default, alternate and required flag', () => {
    const cwd = writeStack(files)
    const project = loadComposeProject({ cwd, environment: {}, interpolate: false })
    expect(listVariables(project.references).map(({ uses: _uses, ...variable }) => variable)).toEqual([
      { name: 'DB_PASSWORD', required: true },
      { name: 'ENTRY', required: false, defaultValue: '/init' },
      { name: 'OPTIONAL', required: false, alternateValue: 'on' },
      { name: 'TAG', required: false, defaultValue: '1' },
    ])
  })
})
