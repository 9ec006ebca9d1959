import { chmodSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  ComposeFileNotFoundError,
  ComposeInputError,
  RequiredVariableError,
} from '../../../src/compose/errors.js'
import { discoverComposeFiles, loadComposeProject } from '../../../src/compose/load.js'
import { loadStack, writeStack } from '../../helpers/compose-stack.js'
import { thrown } from '../../helpers/thrown.js'

const load = loadStack

function service(project: { model: Record<string, unknown> }, name: string): Record<string, unknown> {
  return (project.model.services as Record<string, Record<string, unknown>>)[name]!
}

describe('where interpolation applies', () => {
  it('substitutes every string value, never a key, and passes other scalars through', () => {
    const { project } = load(
      {
        'compose.yaml': [
          'services:',
          '  app:',
          '    image: "busybox:${TAG}"',
          '    environment:',
          '      ${KEY}: ${VALUE}',
          '      NUMBER: 5',
          '      FLAG: true',
          '      NOTHING: null',
          '    labels: ["a=${VALUE}"]',
          '    command: ["echo", "${VALUE}"]',
          '# a comment with ${NOT_A_REFERENCE}',
        ].join('\n'),
      },
      { environment: { TAG: '1.36', KEY: 'K', VALUE: 'v' } },
    )
    expect(service(project, 'app')).toEqual({
      command: ['echo', 'v'],
      environment: { '${KEY}': 'v', FLAG: 'true', NOTHING: null, NUMBER: '5' },
      image: 'busybox:1.36',
      labels: { a: 'v' },
    })
  })

  it.each([
    ['scale', '${N}', '3', 3],
    ['privileged', '${B}', 'true', true],
    ['read_only', '${B}', 'false', false],
    ['tty', '${B}', 'yes', true],
    ['cpus', '${N}', '0.5', 0.5],
  ])('casts %s after substitution', (field, template, value, expected) => {
    const { project } = load(
      { 'compose.yaml': `services:\n  app:\n    image: x\n    ${field}: "${template}"\n` },
      { environment: { N: value, B: value } },
    )
    expect(service(project, 'app')[field]).toEqual(expected)
  })

  it('casts deploy.replicas and external', () => {
    const { project } = load(
      {
        'compose.yaml':
          'services:\n  app:\n    image: x\n    deploy:\n      replicas: "${N}"\nnetworks:\n  n:\n    external: "${B}"\n',
      },
      { environment: { N: '2', B: 'true' } },
    )
    expect(service(project, 'app').deploy).toEqual({ replicas: 2 })
    expect(project.model.networks).toEqual({ n: { external: true } })
  })

  it('refuses a value that does not cast, naming file, line and path', () => {
    const error = thrown(() =>
      load(
        { 'compose.yaml': 'services:\n  app:\n    image: x\n    scale: "${N}"\n' },
        { environment: { N: 'many' } },
      ),
    )
    expect(error).toBeInstanceOf(ComposeInputError)
    expect(error.message).toMatch(
      /compose\.yaml:4: services\.app\.scale must be an integer \(the value is not shown\)$/,
    )
  })

  it('casts a long-syntax port target and parses short ports to the long form', () => {
    const { project } = load(
      {
        'compose.yaml':
          'services:\n  app:\n    image: x\n    ports:\n      - target: "${P}"\n        published: "9000"\n      - "127.0.0.1:${P}:80/udp"\n',
      },
      { environment: { P: '8080' } },
    )
    expect(service(project, 'app').ports).toEqual([
      { target: 8080, published: '9000' },
      { mode: 'ingress', host_ip: '127.0.0.1', target: 80, published: '8080', protocol: 'udp' },
    ])
  })

  it('never shows a substituted value in a cast error', () => {
    const error = thrown(() =>
      load(
        { 'compose.yaml': 'services:\n  app:\n    image: x\n    privileged: "${SECRET}"\n' },
        { secrets: { SECRET: 'canary-secret-1' } },
      ),
    )
    expect(error.message).toMatch(/services\.app\.privileged must be a boolean/)
    expect(error.message).not.toContain('canary')
  })

  it('adds the location to a required-variable error', () => {
    const error = thrown(() =>
      load({
        'compose.yaml':
          'services:\n  web:\n    image: x\n    environment:\n      DB_PASSWORD: ${DB_PASSWORD:?set it in the vault}\n',
      }),
    )
    expect(error).toBeInstanceOf(RequiredVariableError)
    expect((error as RequiredVariableError).exitCode).toBe(3)
    expect(error.message).toMatch(
      /compose\.yaml:5: error while interpolating services\.web\.environment\.DB_PASSWORD: required variable DB_PASSWORD is missing a value: set it in the vault$/,
    )
  })

  it('adds the location to an Invalid template error', () => {
    const error = thrown(() => load({ 'compose.yaml': 'services:\n  web:\n    image: "${TAG:=x}"\n' }))
    expect(error).toBeInstanceOf(ComposeInputError)
    expect(error.message).toMatch(
      /compose\.yaml:3: error while interpolating services\.web\.image: Invalid template: "\$\{TAG:=x\}"$/,
    )
  })

  it('warns once per unset plain reference and uses an empty string', () => {
    const { project } = load({ 'compose.yaml': 'services:\n  web:\n    image: "x${NOPE}"\n' })
    expect(service(project, 'web').image).toBe('x')
    expect(project.problems).toEqual([
      expect.objectContaining({
        level: 'warning',
        code: 'unset_variable',
        message: 'The "NOPE" variable is not set. Defaulting to a blank string.',
        service: 'web',
        line: 3,
      }),
    ])
  })

  it('leaves everything raw with interpolate: false', () => {
    const { project } = load(
      { 'compose.yaml': 'services:\n  web:\n    image: "x:${TAG:?no}"\n' },
      { interpolate: false },
    )
    expect(service(project, 'web').image).toBe('x:${TAG:?no}')
  })
})

describe('precedence of variables', () => {
  const compose =
    'services:\n  app:\n    image: x\n    environment:\n      A: ${A-unset}\n      B: ${B-unset}\n'

  it('the process environment beats .env, even with an empty value', () => {
    const { project } = load(
      { 'compose.yaml': compose, '.env': 'A=file\nB=file\n' },
      { environment: { A: '' } },
    )
    expect(service(project, 'app').environment).toEqual({ A: '', B: 'file' })
  })

  it('--env-file files are read in order, later winning, and .env is then ignored', () => {
    const { project } = load(
      {
        'compose.yaml': compose,
        '.env': 'A=dotenv\nB=dotenv\n',
        'one.env': 'A=one\nB=one\n',
        'two.env': 'B=two\n',
      },
      { envFiles: ['one.env', 'two.env'] },
    )
    expect(service(project, 'app').environment).toEqual({ A: 'one', B: 'two' })
  })

  it('the vault layer beats the process environment, unless preferHostEnv', () => {
    const files = { 'compose.yaml': compose, '.env': 'B=file\n' }
    const environment = { A: 'host' }
    const secrets = { A: 'vault', B: 'vault' }
    expect(service(load(files, { environment, secrets }).project, 'app').environment).toEqual({
      A: 'vault',
      B: 'vault',
    })
    expect(
      service(load(files, { environment, secrets, preferHostEnv: true }).project, 'app').environment,
    ).toEqual({
      A: 'host',
      B: 'vault',
    })
  })

  it("a service's environment beats its env_file; bare keys inherit from the variables", () => {
    const { project } = load(
      {
        'compose.yaml':
          'services:\n  app:\n    image: x\n    env_file: app.env\n    environment:\n      - SHARED=compose\n      - INHERIT\n      - MISSING\n',
        'app.env': 'SHARED=file\nONLY_FILE=${HOST_VALUE}\n',
      },
      { environment: { INHERIT: 'host', HOST_VALUE: 'hv' } },
    )
    expect(service(project, 'app').environment).toEqual({
      INHERIT: 'host',
      MISSING: null,
      ONLY_FILE: 'hv',
      SHARED: 'compose',
    })
    expect(service(project, 'app').env_file).toBeUndefined()
  })

  it('masks values that came from the vault, also inside a longer value', () => {
    const { project } = load(
      {
        'compose.yaml':
          'services:\n  app:\n    image: x\n    environment:\n      URL: postgres://u:${PW}@db/${DB}\n      PW:\n      PORT: ${PORT}\n',
      },
      { environment: { DB: 'app' }, secrets: { PW: 'canary-secret', PORT: '5432' }, mask: true },
    )
    expect(service(project, 'app').environment).toEqual({
      PORT: '********',
      PW: '********',
      URL: 'postgres://u:********@db/app',
    })
    expect(JSON.stringify(project.model)).not.toContain('canary-secret')
  })
})

describe('files: discovery, merge and extends', () => {
  it.each([
    [['compose.yaml'], ['compose.yaml']],
    [
      ['docker-compose.yml', 'docker-compose.override.yml'],
      ['docker-compose.yml', 'docker-compose.override.yml'],
    ],
    [['compose.yaml', 'docker-compose.yml'], ['compose.yaml']],
    [
      ['compose.yml', 'compose.override.yaml'],
      ['compose.yml', 'compose.override.yaml'],
    ],
  ])('discovers %j as %j', (present, expected) => {
    const cwd = writeStack(Object.fromEntries(present.map((file) => [file, 'services: {}\n'])))
    expect(discoverComposeFiles(cwd)).toEqual(expected.map((file) => join(cwd, file)))
  })

  it('discovers a compose file in a parent directory', () => {
    const cwd = writeStack({ 'compose.yaml': 'services: {}\n', 'sub/dir/.keep': '' })
    expect(discoverComposeFiles(join(cwd, 'sub/dir'))).toEqual([join(cwd, 'compose.yaml')])
  })

  it('reports a missing compose file (exit 5)', () => {
    const error = thrown(() => discoverComposeFiles(writeStack({ '.keep': '' }).replace(/$/, '/')))
    expect(error).toBeInstanceOf(ComposeFileNotFoundError)
  })

  it('merges -f files with compose rules', () => {
    const { project } = load(
      {
        'a.yaml':
          'services:\n  web:\n    image: a\n    command: ["a"]\n    environment: [X=1, Y=1]\n    ports: ["80:80"]\n    volumes: ["/a:/data", "/logs:/logs"]\n    labels: {one: "1"}\n',
        'b.yaml':
          'services:\n  web:\n    image: b\n    command: ["b"]\n    environment: {Y: "2"}\n    ports: ["443:443"]\n    volumes: ["/b:/data"]\n    labels: [two=2]\n',
      },
      { files: ['a.yaml', 'b.yaml'] },
    )
    const web = service(project, 'web')
    expect(web.image).toBe('b')
    expect(web.command).toEqual(['b'])
    expect(web.environment).toEqual({ X: '1', Y: '2' })
    expect((web.ports as { target: number }[]).map((port) => port.target)).toEqual([80, 443])
    expect(web.volumes).toEqual(['/b:/data', '/logs:/logs'])
    expect(web.labels).toEqual({ one: '1', two: '2' })
  })

  it('resolves extends in the same file and from another file, relative to that file', () => {
    const { project } = load({
      'compose.yaml':
        'services:\n  base:\n    image: base\n    environment: {A: "1"}\n  web:\n    extends: base\n    environment: {B: "2"}\n  job:\n    extends:\n      file: lib/common.yaml\n      service: worker\n',
      'lib/common.yaml':
        'services:\n  worker:\n    image: worker\n    env_file: worker.env\n    command: ["${CMD:-run}"]\n',
      'lib/worker.env': 'FROM_LIB=yes\n',
    })
    expect(service(project, 'web')).toEqual({ environment: { A: '1', B: '2' }, image: 'base' })
    expect(service(project, 'job')).toEqual({
      command: ['run'],
      environment: { FROM_LIB: 'yes' },
      image: 'worker',
    })
  })
})

describe('bad input: one line with file and line', () => {
  it.each([
    [
      'malformed YAML',
      { 'compose.yaml': 'services:\n  web:\n    image: [x\n' },
      ComposeInputError,
      /compose\.yaml:\d+: invalid YAML/,
    ],
    [
      'an extends cycle',
      { 'compose.yaml': 'services:\n  a:\n    extends: b\n  b:\n    extends: a\n' },
      ComposeInputError,
      /compose\.yaml:3: extends cycle: a -> b -> a$/,
    ],
    [
      'an extends of an unknown service',
      { 'compose.yaml': 'services:\n  a:\n    image: x\n    extends: nope\n' },
      ComposeInputError,
      /compose\.yaml:4: service "a" extends "nope", which is not defined in/,
    ],
    [
      'an unterminated quote in .env',
      { 'compose.yaml': 'services: {}\n', '.env': 'A=1\nB="open\n' },
      ComposeInputError,
      /\.env:2: unterminated quoted value/,
    ],
    [
      'a missing env_file',
      { 'compose.yaml': 'services:\n  a:\n    image: x\n    env_file: missing.env\n' },
      ComposeFileNotFoundError,
      /env file .*missing\.env not found$/,
    ],
    [
      'a top level that is not a mapping',
      { 'compose.yaml': '- a\n- b\n' },
      ComposeInputError,
      /compose\.yaml:1: a compose file must be a mapping/,
    ],
  ])('%s', (_, files, type, message) => {
    const error = thrown(() => load(files as Record<string, string>))
    expect(error).toBeInstanceOf(type)
    expect(error.message.split('\n')).toHaveLength(1)
    expect(error.message).toMatch(message)
  })

  it('a missing -f file is not found (exit 5)', () => {
    const error = thrown(() => load({ 'compose.yaml': 'services: {}\n' }, { files: ['nope.yaml'] }))
    expect(error).toBeInstanceOf(ComposeFileNotFoundError)
    expect((error as ComposeFileNotFoundError).exitCode).toBe(5)
    expect(error.message).toMatch(/^compose file .*nope\.yaml not found$/)
  })

  it.skipIf(process.getuid?.() === 0)('an unreadable file says so', () => {
    const cwd = writeStack({ 'compose.yaml': 'services: {}\n' })
    chmodSync(join(cwd, 'compose.yaml'), 0o000)
    const error = thrown(() => loadComposeProject({ cwd, environment: {} }))
    expect(error.message).toMatch(/cannot be read \(EACCES\)$/)
  })
})

describe('without the reference index', () => {
  const files = {
    'compose.yaml': 'services:\n  web:\n    image: "app:${TAG:-1}"\n    environment:\n      A: $UNSET_ONE\n',
  }

  it('gives the same model and warnings (with their lines) and no references', () => {
    const cwd = writeStack(files)
    const indexed = loadComposeProject({ cwd, environment: {} })
    const plain = loadComposeProject({ cwd, environment: {}, referenceIndex: false })
    expect(plain.model).toEqual(indexed.model)
    expect(plain.problems).toEqual(indexed.problems)
    expect(plain.problems[0]).toMatchObject({ code: 'unset_variable', variable: 'UNSET_ONE', line: 5 })
    expect(indexed.references.map((site) => site.name)).toEqual(['TAG', 'UNSET_ONE'])
    expect(plain.references).toEqual([])
  })
})

describe('an env file shared by services', () => {
  it('gives each service its values and records its references once per service', () => {
    const { project } = load(
      {
        'compose.yaml':
          'services:\n  a:\n    image: x\n    env_file: common.env\n  b:\n    image: x\n    env_file: [common.env]\n',
        'common.env': 'HOST=db\nURL=postgres://${HOST}/app\n',
      },
      { environment: {} },
    )
    expect(service(project, 'a').environment).toEqual({ HOST: 'db', URL: 'postgres://db/app' })
    expect(service(project, 'b').environment).toEqual({ HOST: 'db', URL: 'postgres://db/app' })
    const sites = project.references.filter((site) => site.field === 'env_file')
    expect(sites.map((site) => [site.service, site.name, site.line])).toEqual([
      ['a', 'HOST', 2],
      ['b', 'HOST', 2],
    ])
  })
})
