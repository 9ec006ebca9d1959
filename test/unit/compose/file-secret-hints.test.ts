import { describe, expect, it } from 'vitest'
import { checkProject } from '../../../src/compose/check.js'
import { imageRepository } from '../../../src/compose/file-secret-hints.js'
import { loadComposeProject } from '../../../src/compose/load.js'
import { writeStack } from '../../helpers/compose-stack.js'

const compose = [
  'services:',
  '  db:',
  '    image: docker.io/library/postgres:16-alpine',
  '    environment:',
  '      POSTGRES_PASSWORD: ${DATABASE_PASSWORD}',
  '      POSTGRES_DB: app',
  '  app:',
  '    image: ghcr.io/example/app:1',
  '    environment:',
  '      DB_PASSWORD: ${DATABASE_PASSWORD}',
  '  maria:',
  '    image: mariadb',
  '    environment:',
  '      MARIADB_ROOT_PASSWORD: ${FROM_HOST}',
].join('\n')

describe('render --check: secrets that could be *_FILE secrets', () => {
  it('points at a known image taking a vault value through environment:, nothing else', () => {
    const cwd = writeStack({ 'compose.yaml': compose })
    const project = loadComposeProject({
      cwd,
      environment: { FROM_HOST: 'h' },
      secrets: { DATABASE_PASSWORD: 'pw' },
      collectProblems: true,
      referenceIndex: true,
    })
    const hints = checkProject(project).problems.filter((problem) => problem.code === 'secret_in_environment')
    expect(hints.map(({ level, service, variable, line }) => ({ level, service, variable, line }))).toEqual([
      { level: 'info', service: 'db', variable: 'DATABASE_PASSWORD', line: 5 },
    ])
    expect(hints[0]!.message).toContain('postgres reads POSTGRES_PASSWORD_FILE')
    expect(hints[0]!.message).not.toContain('pw')
  })

  it.each([
    ['postgres', 'postgres'],
    ['postgres:16', 'postgres'],
    ['docker.io/library/mysql:8@sha256:abc', 'mysql'],
    ['registry:5000/mongo', 'mongo'],
  ])('%s is image %s', (image, repository) => expect(imageRepository(image)).toBe(repository))
})
