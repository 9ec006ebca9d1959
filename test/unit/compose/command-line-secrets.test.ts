import { describe, expect, it } from 'vitest'
import { checkProject } from '../../../src/compose/check.js'
import { loadComposeProject } from '../../../src/compose/load.js'
import { writeStack } from '../../helpers/compose-stack.js'

const compose = [
  'services:',
  '  cache:',
  '    image: redis:7',
  '    command: redis-server --requirepass ${REDIS_PASSWORD}',
  '    healthcheck:',
  '      test: ["CMD", "redis-cli", "-a", "${REDIS_PASSWORD}", "ping"]',
  '  worker:',
  '    image: ghcr.io/example/worker:1',
  '    entrypoint: ["/worker", "--token=${API_TOKEN}", "--region=${REGION}"]',
  '    environment:',
  '      REDIS_PASSWORD: ${REDIS_PASSWORD}',
  '  shell:',
  '    image: alpine',
  '    command: sh -c "exec app --password $$REDIS_PASSWORD"',
].join('\n')

describe('render --check: vault secrets written into a command line', () => {
  const cwd = writeStack({ 'compose.yaml': compose })
  const project = loadComposeProject({
    cwd,
    environment: { REGION: 'eu' },
    secrets: { REDIS_PASSWORD: 'canary-redis-9f2', API_TOKEN: 'canary-token-4c1' },
    collectProblems: true,
    referenceIndex: true,
  })
  const warnings = checkProject(project).problems.filter(
    (problem) => problem.code === 'secret_in_command_line',
  )

  it('warns once per service and secret, at the first line, for command, entrypoint and healthcheck', () => {
    expect(
      warnings.map(({ level, service, variable, line }) => ({ level, service, variable, line })),
    ).toEqual([
      { level: 'warning', service: 'cache', variable: 'REDIS_PASSWORD', line: 4 },
      { level: 'warning', service: 'worker', variable: 'API_TOKEN', line: 9 },
    ])
    expect(warnings[0]!.message).toContain('into its command')
    expect(warnings[1]!.message).toContain('into its entrypoint')
  })

  it('says nothing of environment:, of values that are not vault secrets, or of $$ left to the container', () => {
    expect(warnings.some((warning) => warning.service === 'shell')).toBe(false)
    expect(warnings.some((warning) => warning.variable === 'REGION')).toBe(false)
  })

  it('never prints a value', () => {
    for (const warning of warnings) expect(JSON.stringify(warning)).not.toMatch(/canary-/)
  })
})
