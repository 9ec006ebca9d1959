/**
 * Reproducers of the loader bugs of issue 17: aliased blocks interpolated once per use, YAML 1.1
 * octal file modes, `--no-interpolate` on ports holding variables, and compose-go's type casts.
 */
import { describe, expect, it } from 'vitest'
import { ComposeInputError } from '../../../src/compose/errors.js'
import type { LoadComposeOptions } from '../../../src/compose/load.js'
import { formatModel } from '../../../src/compose/output.js'
import { loadStack } from '../../helpers/compose-stack.js'
import { thrown } from '../../helpers/thrown.js'

const load = (text: string, options: LoadComposeOptions = {}) =>
  loadStack({ 'compose.yaml': text }, options).project

function services(project: { model: Record<string, unknown> }): Record<string, Record<string, unknown>> {
  return project.model.services as Record<string, Record<string, unknown>>
}

describe('a block reused through a YAML alias is interpolated once per use', () => {
  const netbox = [
    'x-redis: &redis',
    '  image: redis:7',
    '  healthcheck: &hc',
    '    test: \'[ $$(valkey-cli --pass "$${REDIS_PASSWORD}" ping) = "PONG" ]\'',
    '    interval: 5s',
    '  environment: &env',
    '    REDIS_PASSWORD: ${REDIS_PASSWORD}',
    '    LITERAL: "cost: $$5"',
    'services:',
    '  redis: *redis',
    '  redis-cache:',
    '    <<: *redis',
    '  worker:',
    '    image: app',
    '    healthcheck: *hc',
    '    environment: *env',
  ].join('\n')

  it('keeps $$ escapes in every use (netbox-docker redis health check)', () => {
    const project = load(netbox, { environment: { REDIS_PASSWORD: 'pa$$word' } })
    for (const name of ['redis', 'redis-cache', 'worker']) {
      const service = services(project)[name]!
      expect((service.healthcheck as Record<string, unknown>).test).toBe(
        '[ $(valkey-cli --pass "${REDIS_PASSWORD}" ping) = "PONG" ]',
      )
      expect(service.environment).toEqual({ LITERAL: 'cost: $5', REDIS_PASSWORD: 'pa$$word' })
    }
    expect(formatModel(project.model, 'yaml')).toContain('--pass \\"$${REDIS_PASSWORD}\\" ping')
  })

  it('does not expand a value twice (a vault value holding $ stays as it is)', () => {
    const project = load(netbox, { secrets: { REDIS_PASSWORD: '${HOME}x' }, environment: { HOME: '/root' } })
    expect(services(project).worker!.environment).toMatchObject({ REDIS_PASSWORD: '${HOME}x' })
    expect(services(project).redis!.environment).toMatchObject({ REDIS_PASSWORD: '${HOME}x' })
  })

  it('an aliased $${X:?msg} is a literal, not a required variable', () => {
    const text = [
      'x-cmd: &cmd ["sh", "-c", "echo $${X:?msg}"]',
      'services:',
      '  a: { image: x, command: *cmd }',
      '  b: { image: x, command: *cmd }',
    ].join('\n')
    const project = load(text)
    expect(services(project).a!.command).toEqual(['sh', '-c', 'echo ${X:?msg}'])
    expect(services(project).b!.command).toEqual(['sh', '-c', 'echo ${X:?msg}'])
  })

  it('records the references of each aliased use for the service that uses it', () => {
    const project = load(netbox, { environment: { REDIS_PASSWORD: 'p' }, referenceIndex: true })
    const users = new Set(
      project.references.filter((site) => site.name === 'REDIS_PASSWORD').map((site) => site.service),
    )
    // '' is the x-redis extension field itself
    expect(users).toEqual(new Set(['', 'redis', 'redis-cache', 'worker']))
  })
})

describe('octal file modes', () => {
  const text = (mode: string) =>
    `services:\n  app:\n    image: x\n    secrets:\n      - source: s\n        mode: ${mode}\nsecrets:\n  s:\n    file: ./s.txt\n`
  const modeOf = (project: { model: Record<string, unknown> }) =>
    ((services(project).app!.secrets as Record<string, unknown>[])[0] as Record<string, unknown>).mode

  it.each([
    ['0440', 0o440],
    ['0o440', 0o440],
    ['"0440"', 0o440],
    ['"440"', 0o440],
    ['288', 288],
    ['${MODE}', 0o400],
  ])('mode: %s is %d, as compose reads it', (mode, expected) => {
    expect(modeOf(load(text(mode), { environment: { MODE: '0400' } }))).toBe(expected)
  })

  it('reads 0440 as octal in the fast reader and the full parser alike', () => {
    const full = `# &anchor forces the full parser\nx-a: &a 1\n${text('0440')}`
    expect(modeOf(load(full))).toBe(0o440)
  })

  it('refuses a mode that is not octal', () => {
    expect(thrown(() => load(text('"0980"'))).message).toMatch(/mode must be an octal file mode/)
  })
})

describe('--no-interpolate keeps ports that hold variables as written', () => {
  const mailcow = [
    'services:',
    '  dovecot:',
    '    image: x',
    '    ports:',
    '      - "${DOVEADM_PORT:-127.0.0.1:19991}:12345"',
    '      - "${IMAP_PORT:-143}:143"',
    '      - "${IMAPS_PORT:-993}:993"',
    '      - "${HTTP_BIND:-}:${HTTP_PORT:-80}:${HTTP_PORT:-80}"',
  ].join('\n')

  it('prints the list unchanged, nothing lost and no NaN', () => {
    const project = load(mailcow, { interpolate: false })
    expect(services(project).dovecot!.ports).toEqual([
      '${DOVEADM_PORT:-127.0.0.1:19991}:12345',
      '${IMAP_PORT:-143}:143',
      '${IMAPS_PORT:-993}:993',
      '${HTTP_BIND:-}:${HTTP_PORT:-80}:${HTTP_PORT:-80}',
    ])
  })

  it('still parses them when interpolating', () => {
    const project = load(mailcow)
    expect(services(project).dovecot!.ports).toEqual([
      { mode: 'ingress', host_ip: '127.0.0.1', target: 12345, published: '19991', protocol: 'tcp' },
      { mode: 'ingress', target: 143, published: '143', protocol: 'tcp' },
      { mode: 'ingress', target: 993, published: '993', protocol: 'tcp' },
      { mode: 'ingress', target: 80, published: '80', protocol: 'tcp' },
    ])
  })

  it('--check lists a missing port variable instead of failing on the empty port', () => {
    const project = load('services:\n  a:\n    image: x\n    ports: ["${P:?set P}"]\n', {
      collectProblems: true,
    })
    expect(project.problems.map((problem) => [problem.code, problem.variable, problem.line])).toEqual([
      ['required_variable', 'P', 4],
    ])
  })

  it('refuses a port that does not parse after interpolation', () => {
    expect(
      thrown(() =>
        load('services:\n  a:\n    image: x\n    ports: ["${P}:80"]\n', { environment: { P: 'x' } }),
      ),
    ).toBeInstanceOf(ComposeInputError)
  })
})

describe('types are cast as compose-go casts them', () => {
  it('casts quoted booleans and numbers at compose-go paths', () => {
    const project = load(
      [
        'services:',
        '  app:',
        '    image: x',
        '    init: "true"',
        '    oom_kill_disable: "off"',
        '    cpu_count: "2"',
        '    cpus: "0.5"',
        '    ulimits: { nproc: "65535", nofile: { soft: "1024", hard: "2048" } }',
        '    volumes: [{ type: volume, source: v, target: /v, read_only: "yes", volume: { nocopy: "true" } }]',
        '    deploy: { update_config: { parallelism: "2" }, restart_policy: { max_attempts: "3" } }',
        'networks:',
        '  n: { enable_ipv6: "true", internal: "false", attachable: "TRUE" }',
        'volumes:',
        '  v: {}',
      ].join('\n'),
    )
    const app = services(project).app!
    expect(app).toMatchObject({
      init: true,
      oom_kill_disable: false,
      cpu_count: 2,
      cpus: 0.5,
      ulimits: { nproc: 65535, nofile: { soft: 1024, hard: 2048 } },
      deploy: { update_config: { parallelism: 2 }, restart_policy: { max_attempts: 3 } },
    })
    expect((app.volumes as Record<string, unknown>[])[0]).toMatchObject({
      read_only: true,
      volume: { nocopy: true },
    })
    expect(project.model.networks).toEqual({ n: { enable_ipv6: true, internal: false, attachable: true } })
  })

  it.each(['"1"', '"0"', '1', '0', '"maybe"'])('refuses %s as a boolean', (value) => {
    const error = thrown(() => load(`services:\n  app:\n    image: x\n    privileged: ${value}\n`))
    expect(error).toBeInstanceOf(ComposeInputError)
    expect(error.message).toMatch(/compose\.yaml:4: services\.app\.privileged must be a boolean/)
  })

  it.each(['" 2"', '"2.0"', '"0x10"'])('refuses %s as an integer (Go strconv rules)', (value) => {
    expect(thrown(() => load(`services:\n  app:\n    image: x\n    scale: ${value}\n`)).message).toMatch(
      /services\.app\.scale must be an integer/,
    )
  })

  it('leaves strings alone outside the typed paths', () => {
    const project = load(
      'services:\n  app:\n    image: x\n    environment:\n      ON: "true"\n    labels: { a: "1" }\n',
    )
    expect(services(project).app).toMatchObject({ environment: { ON: 'true' }, labels: { a: '1' } })
  })
})
