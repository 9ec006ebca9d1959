/** Top-level `include`: every form, nesting, relative paths, variables and compose's errors. */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkProject } from '../../../src/compose/check.js'
import { ComposeInputError } from '../../../src/compose/errors.js'
import { formatModel } from '../../../src/compose/output.js'
import { findReferences } from '../../../src/compose/references.js'
import { loadStack } from '../../helpers/compose-stack.js'
import { thrown } from '../../helpers/thrown.js'

const load = loadStack

const services = (project: { model: Record<string, unknown> }) =>
  project.model.services as Record<string, Record<string, unknown>>

const database = [
  'services:',
  '  db:',
  '    image: postgres:${PG_VERSION:-16}',
  '    build: ./context',
  '    env_file: ./db.env',
  '    environment:',
  '      POSTGRES_PASSWORD: ${DB_PASSWORD:?set DB_PASSWORD}',
  'volumes:',
  '  pgdata: {}',
].join('\n')

describe('include', () => {
  it('short form: imports the services and volumes, paths relative to the included file', () => {
    const { cwd, project } = load(
      {
        'compose.yaml':
          'include:\n  - db/compose.yaml\nservices:\n  app:\n    image: app\n    depends_on: [db]\n',
        'db/compose.yaml': database,
        'db/db.env': 'FROM_FILE=1\n',
      },
      { environment: { DB_PASSWORD: 'pw' } },
    )
    expect(Object.keys(services(project))).toEqual(['app', 'db'])
    expect(services(project).db).toMatchObject({
      image: 'postgres:16',
      build: { context: join(cwd, 'db/context') },
      environment: { FROM_FILE: '1', POSTGRES_PASSWORD: 'pw' },
    })
    expect(project.model.volumes).toEqual({ pgdata: {} })
    expect(project.includedFiles).toEqual([join(cwd, 'db/compose.yaml')])
    expect(formatModel(project.model, 'yaml')).not.toMatch(/^include:/m)
  })

  it('long form: several paths (later ones override), env_file and project_directory', () => {
    const { cwd, project } = load({
      'compose.yaml': [
        'include:',
        '  - path: [lib/base.yaml, lib/override.yaml]',
        '    project_directory: lib/project',
        '    env_file: [lib/one.env, lib/two.env]',
      ].join('\n'),
      'lib/base.yaml': 'services:\n  web:\n    image: web:${TAG}\n    build: .\n    environment: [A=1]\n',
      'lib/override.yaml': 'services:\n  web:\n    environment: ["B=${B_VALUE}"]\n',
      'lib/one.env': 'TAG=1.0\nB_VALUE=one\n',
      'lib/two.env': 'B_VALUE=two\n',
    })
    expect(services(project).web).toMatchObject({
      image: 'web:1.0',
      build: { context: join(cwd, 'lib/project') },
      environment: { A: '1', B: 'two' },
    })
  })

  it("the including project's variables win over the include's env files; its .env is the default", () => {
    const { project } = load(
      {
        'compose.yaml': 'include:\n  - sub/compose.yaml\n',
        'sub/compose.yaml': 'services:\n  s:\n    image: "${IMAGE}:${TAG}"\n',
        'sub/.env': 'IMAGE=from-include\nTAG=from-include\n',
      },
      { environment: { TAG: 'from-parent' } },
    )
    expect(services(project).s!.image).toBe('from-include:from-parent')
  })

  it('resolves nested includes against each including file', () => {
    const { project } = load({
      'compose.yaml': 'include:\n  - a/compose.yaml\n',
      'a/compose.yaml': 'include:\n  - b/compose.yaml\nservices:\n  a:\n    image: a\n',
      'a/b/compose.yaml': 'services:\n  b:\n    image: b\n',
    })
    expect(Object.keys(services(project))).toEqual(['a', 'b'])
  })

  it('lets extends use an included service', () => {
    const { project } = load({
      'compose.yaml': 'include: [base.yaml]\nservices:\n  web:\n    extends: base\n    command: run\n',
      'base.yaml': 'services:\n  base:\n    image: base\n    restart: always\n',
    })
    expect(services(project).web).toMatchObject({ image: 'base', restart: 'always', command: 'run' })
  })

  it('refuses a resource defined differently on both sides (compose: conflicts with imported resource)', () => {
    const error = thrown(() =>
      load({
        'compose.yaml': 'include:\n  - other.yaml\nservices:\n  db:\n    image: mine\n',
        'other.yaml': 'services:\n  db:\n    image: theirs\n',
      }),
    )
    expect(error).toBeInstanceOf(ComposeInputError)
    expect(error.message).toMatch(/compose\.yaml:2: services\.db conflicts with imported resource/)
  })

  it('accepts the same definition on both sides', () => {
    const { project } = load({
      'compose.yaml': 'include:\n  - other.yaml\nvolumes:\n  data: {}\nservices:\n  a:\n    image: a\n',
      'other.yaml': 'volumes:\n  data: {}\nservices:\n  b:\n    image: b\n',
    })
    expect(project.model.volumes).toEqual({ data: {} })
  })

  it('refuses an include cycle', () => {
    const error = thrown(() =>
      load({
        'compose.yaml': 'include: [a.yaml]\n',
        'a.yaml': 'include: [b.yaml]\n',
        'b.yaml': 'include: [a.yaml]\n',
      }),
    )
    expect(error.message).toMatch(/include cycle detected/)
  })

  it('refuses a missing included file', () => {
    expect(thrown(() => load({ 'compose.yaml': 'include: [nope.yaml]\n' })).message).toMatch(
      /nope\.yaml not found/,
    )
  })

  it('counts included files for --check, --who-uses and --mask', () => {
    const files = {
      'compose.yaml': 'include:\n  - db/compose.yaml\nservices:\n  app:\n    image: app\n',
      'db/compose.yaml': database,
      'db/db.env': '',
    }
    const checked = load(files, { collectProblems: true }).project
    const problem = checkProject(checked).problems.find((entry) => entry.variable === 'DB_PASSWORD')
    expect(problem).toMatchObject({ level: 'error', service: 'db', line: 7 })
    expect(problem?.file).toMatch(/db\/compose\.yaml$/)

    const { project } = load(files, { secrets: { DB_PASSWORD: 'canary-include-1' }, mask: true })
    expect(findReferences(project, 'DB_PASSWORD').map((site) => [site.service, site.line])).toEqual([
      ['db', 7],
    ])
    const text = formatModel(project.model, 'yaml')
    expect(text).toContain('POSTGRES_PASSWORD: "********"')
    expect(text).not.toContain('canary-include-1')
  })
})
