/**
 * The keys docker-compose v1 refuses, checked against what v1 1.29 really did with the corpus:
 * every corpus stack v1 reads gets no finding, and the ones it refused for a key get that key,
 * with its file and line.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { renderStack } from '../../../src/compose/render.js'
import type { ComposeProblem } from '../../../src/compose/types.js'
import { writeStack } from '../../helpers/compose-stack.js'

const corpus = fileURLToPath(new URL('../../fixtures/compose-corpus/', import.meta.url))
const stacks = readdirSync(corpus).filter((name) => existsSync(join(corpus, name, 'case.json')))

async function v1Findings(cwd: string, files?: string[], environment: Record<string, string> = {}) {
  const result = await renderStack({ mode: 'check', cwd, files, environment, composeClient: 'v1' })
  if (result.kind !== 'check') throw new Error('expected a check')
  return result.problems.filter((problem) => problem.code === 'v1_refused_key')
}

const paths = (problems: ComposeProblem[]) =>
  problems.map((problem) => problem.message.replace(/^.*?: (\S+) is not supported.*$/, '$1'))

describe('keys docker-compose v1 refuses', () => {
  it.each(stacks)('%s: as v1 1.29 did', async (stack) => {
    const fixture = JSON.parse(readFileSync(join(corpus, stack, 'case.json'), 'utf8')) as {
      files: string[]
      env?: Record<string, string>
      v1?: string
    }
    const found = paths(await v1Findings(join(corpus, stack), fixture.files, fixture.env))
    const expected: Record<string, string[]> = {
      immich: ['name'],
      'nextcloud-aio': ['name'],
      'sentry-self-hosted': expect.arrayContaining([
        'services.nginx.depends_on.web.restart',
      ]) as unknown as string[],
    }
    if (fixture.v1 === undefined) expect(found).toEqual([])
    else if (stack in expected) expect(found).toEqual(expected[stack])
  })

  it('names file and line of each refused key, included files too', async () => {
    const cwd = writeStack({
      'compose.yaml': [
        'name: demo',
        'include: [more.yaml]',
        'services:',
        '  app:',
        '    image: x',
        '    develop: { watch: [] }',
        '    env_file:',
        '      - path: ./a.env',
        '        required: false',
        '    ports:',
        '      - target: 80',
        '        host_ip: 127.0.0.1',
      ].join('\n'),
      'more.yaml': 'services:\n  other:\n    image: y\n    gpus: all\n',
    })
    const found = await v1Findings(cwd)
    expect(
      found.map((problem) => [paths([problem])[0], problem.line, problem.file?.split('/').pop()]),
    ).toEqual([
      ['name', 1, 'compose.yaml'],
      ['include', 2, 'compose.yaml'],
      ['services.app.develop', 6, 'compose.yaml'],
      ['services.app.env_file.0', 8, 'compose.yaml'],
      ['services.app.ports.0.host_ip', 12, 'compose.yaml'],
      ['services.other.gpus', 4, 'more.yaml'],
    ])
  })

  it('is not reported when the client is v2', async () => {
    const cwd = writeStack({ 'compose.yaml': 'name: demo\nservices:\n  a:\n    image: x\n' })
    const result = await renderStack({ mode: 'check', cwd, environment: {}, composeClient: 'v2' })
    expect(result.kind === 'check' && result.ok).toBe(true)
  })
})
