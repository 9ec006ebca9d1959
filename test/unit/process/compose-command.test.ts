import { describe, expect, it } from 'vitest'
import { parseComposeUp } from '../../../src/process/compose-command.js'

describe('parseComposeUp', () => {
  it.each([
    ['docker-compose', ['up', '-d'], { files: [], detached: true }],
    [
      '/usr/local/bin/docker-compose',
      ['-f', 'a.yml', '--file=b.yml', 'up'],
      { files: ['a.yml', 'b.yml'], detached: false },
    ],
    ['docker', ['compose', 'up', '--wait'], { files: [], detached: true }],
    [
      'docker',
      ['--context', 'x', 'compose', '-p', 'demo', '--project-directory', '/s', 'up', '-Vd'],
      { files: [], detached: true, projectName: 'demo', projectDirectory: '/s' },
    ],
    ['docker', ['compose', '--env-file', 'up', 'up', '--detach', 'web'], { files: [], detached: true }],
  ])('%s %j is a compose up', (command, args, expected) => {
    expect(parseComposeUp(command, args as string[])).toEqual(expected)
  })

  it.each([
    ['docker-compose', ['down']],
    ['docker', ['compose', 'ps']],
    ['docker', ['run', 'up']],
    ['node', ['up']],
    ['docker-compose', ['-f', 'up']],
  ])('%s %j is not', (command, args) => {
    expect(parseComposeUp(command, args as string[])).toBeUndefined()
  })
})
