/**
 * Equivalence: `vault render` against the real `docker-compose config` (Debian's v1 client 1.29,
 * which needs no engine for `config`) on every fixture stack under test/fixtures/compose. Both
 * outputs are parsed and compared after `normalise`, which accounts for these known differences of
 * the v1 client's output (vault renders the v2 shape):
 * - v1 adds `version: '3.9'`; v2 drops `version` and prints the project `name` -> both removed.
 * - ports: v1 prints `published` as an integer and omits `mode: ingress` / `protocol: tcp`; v2
 *   prints `published` as a string with mode and protocol -> published as a string, the defaults removed.
 * - `depends_on` long form: v2 adds `required: true` -> removed.
 * - a service's `networks` entry without options: v1 prints `{}`, v2 `null` -> both `{}`.
 * - a port with a host IP: v1 keeps the short string (`127.0.0.1:9001:9000/tcp`) -> parsed to long form.
 * - short volume syntax: v1 appends the default `:rw` mode and drops a trailing `/` of the paths
 *   (v2 keeps it on an absolute bind source) -> v1's strings in long form, a trailing `/` of a source removed.
 * - `environment` values: v1 keeps YAML numbers and booleans, v2 prints strings -> strings.
 * - top-level `x-` extension fields: v1 drops them -> removed.
 * - what compose v2's normalisation adds and v1 does not print (`v1Shape`, applied to vault's output):
 *   the default network and each service's `default` entry, resource names `<project>_<key>`,
 *   `bind.create_host_path`/`volume: {}` of a long volume (v1's short volume strings are parsed to
 *   the same long shape), a secret's default target, `build.dockerfile: Dockerfile`, and the
 *   `depends_on` entries implied by links / `service:` namespaces (`restart: true`).
 * Not compared at all, because the v1 client differs from v2 (what vault follows) and rejects or
 * changes them: `$` followed by a non-name character (`$1`, `a $ b`: v1 errors, v2 keeps it
 * literal), `${V:+w}` / `${V+w}` (v1 errors), references inside single quotes of an env file
 * (v1's python-dotenv interpolates them, v2 keeps them literal); the unit tests cover these.
 * Everything else (values, merge results, extends, env_file resolution, `$$` escaping) must match.
 * The client runs warm (test/helpers/compose-v1.ts: its own `main()` in a child forked from an
 * interpreter that imported it once; ~100 spawns cost ~30 CPU-s); the first cases check that it prints
 * exactly what the spawned /usr/bin/docker-compose prints.
 * Round trip: vault's output, fed back to the same client with an empty environment, must give the
 * same model again (so every `$` was escaped). The v1 schema knows neither the top-level `name` (removed
 * first) nor a long-syntax port's `host_ip` or a long volume's `bind.selinux` (such a stack is left out of
the round trip).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { runCommandLine } from '../helpers/run-command-line.js'
import { WarmComposeV1 } from '../helpers/compose-v1.js'

const fixtures = fileURLToPath(new URL('../fixtures/compose/', import.meta.url))
const corpus = fileURLToPath(new URL('../fixtures/compose-corpus/', import.meta.url))
const composeV1 = '/usr/bin/docker-compose'
const stacks = readdirSync(fixtures).filter((name) => existsSync(join(fixtures, name, 'case.json')))

interface FixtureCase {
  files?: string[]
  envFiles?: string[]
  env?: Record<string, string>
  /** Why docker-compose 1.29 cannot read this stack (then it is not compared). */
  v1?: string
}

function caseOf(directory: string): FixtureCase {
  return JSON.parse(readFileSync(join(directory, 'case.json'), 'utf8')) as FixtureCase
}

/** The corpus stacks the v1 client can read (the others are rendered by the corpus unit test only). */
const corpusStacks = readdirSync(corpus).filter(
  (name) => existsSync(join(corpus, name, 'case.json')) && caseOf(join(corpus, name)).v1 === undefined,
)

function longPort(text: string): Record<string, unknown> {
  const [spec = '', protocol = 'tcp'] = text.split('/')
  const parts = spec.split(':')
  const target = Number(parts.pop())
  const published = parts.pop()
  const port: Record<string, unknown> = {}
  if (parts.length > 0) port.host_ip = parts.join(':')
  port.target = target
  if (published) port.published = published
  if (protocol !== 'tcp') port.protocol = protocol
  return port
}

/** v1's short volume string (absolute paths, `:rw`/`:ro` appended) in long syntax. */
function longVolume(text: string): Record<string, unknown> {
  const parts = text.split(':')
  if (parts.length === 1) return { type: 'volume', target: parts[0] }
  const [source = '', target = '', mode = ''] = parts
  const volume: Record<string, unknown> = { type: /^[./~]/.test(source) ? 'bind' : 'volume', source, target }
  const options = mode.split(',')
  if (options.includes('ro')) volume.read_only = true
  const selinux = options.find((option) => option === 'z' || option === 'Z')
  if (selinux) volume.bind = { selinux }
  return volume
}

type Model = Record<string, unknown>
const records = (value: unknown) => Object.entries((value ?? {}) as Record<string, Model>)

/** vault's (compose v2) output without what v2's normalisation adds and v1 never prints. */
function v1Shape(model: Model): Model {
  const project = String(model.name)
  for (const [, service] of records(model.services)) {
    const networks = service.networks as Model | undefined
    if (networks && Object.keys(networks).join() === 'default' && networks.default === null)
      delete service.networks
    for (const [name, dependency] of records(service.depends_on))
      if (dependency.restart === true) delete (service.depends_on as Model)[name]
    if (service.depends_on && Object.keys(service.depends_on).length === 0) delete service.depends_on
    for (const volume of (service.volumes ?? []) as Model[]) {
      const bind = volume.bind as Model | undefined
      if (bind?.create_host_path === true) delete bind.create_host_path
      if (bind && Object.keys(bind).length === 0) delete volume.bind
      if (volume.volume && Object.keys(volume.volume).length === 0) delete volume.volume
    }
    for (const secret of (service.secrets ?? []) as Model[])
      if (secret.target === `/run/secrets/${String(secret.source)}`) delete secret.target
  }
  const networks = (model.networks ?? {}) as Record<string, Model>
  if (networks.default?.name === `${project}_default` && Object.keys(networks.default).length === 1)
    delete networks.default
  if (model.networks && Object.keys(networks).length === 0) delete model.networks
  for (const section of ['networks', 'volumes', 'secrets', 'configs']) {
    for (const [key, resource] of records(model[section])) {
      if (resource.name === `${project}_${key}` || (resource.external === true && resource.name === key))
        delete resource.name
    }
  }
  return model
}

function normalise(node: unknown, path: string[] = []): unknown {
  if (path[2] === 'ports' && path.length === 3 && Array.isArray(node)) {
    return node.map((item) => normalise(typeof item === 'string' ? longPort(item) : item, path))
  }
  if (path[2] === 'volumes' && path.length === 3 && Array.isArray(node)) {
    return node.map((item) => normalise(typeof item === 'string' ? longVolume(item) : item, path))
  }
  if (Array.isArray(node)) return node.map((item) => normalise(item, path))
  if (node === null || typeof node !== 'object') {
    if (path.length === 4 && path[0] === 'services' && path[2] === 'networks') return {}
    const scalarEnv =
      path.length === 4 &&
      path[2] === 'environment' &&
      (typeof node === 'number' || typeof node === 'boolean')
    return scalarEnv ? String(node) : node
  }
  const result: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (path.length === 0 && (key === 'version' || key === 'name' || key.startsWith('x-'))) continue
    if (path[2] === 'ports' && key === 'mode' && value === 'ingress') continue
    if (path[2] === 'ports' && key === 'protocol' && value === 'tcp') continue
    if (path[2] === 'depends_on' && path.length === 4 && key === 'required' && value === true) continue
    if (path[2] === 'build' && path.length === 3 && key === 'dockerfile' && value === 'Dockerfile') continue
    if (path[2] === 'volumes' && path.length === 3 && key === 'source' && typeof value === 'string') {
      result[key] = value.replace(/(.)\/$/, '$1')
      continue
    }
    const normalised = normalise(value, [...path, key])
    result[key] = path[2] === 'ports' && key === 'published' ? String(normalised) : normalised
  }
  return result
}

/** vault's output fed back to v1, without what only v2 reads (`v1Shape`, `name`, `depends_on.*.required`). */
async function roundTrip(rendered: string): Promise<unknown> {
  const model = v1Shape(parse(rendered) as Record<string, unknown>)
  delete model.name
  for (const service of Object.values((model.services ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const dependency of Object.values(
      (service.depends_on ?? {}) as Record<string, Record<string, unknown>>,
    ))
      delete dependency.required
  }
  const directory = mkdtempSync(join(tmpdir(), 'vault-roundtrip-'))
  try {
    writeFileSync(join(directory, 'compose.yaml'), stringify(model, { version: '1.1' }))
    return await composeV1Config(directory, {})
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

function composeV1Arguments(fixture: FixtureCase): string[] {
  const args = [...(fixture.files ?? []).flatMap((file) => ['-f', file])]
  if (fixture.envFiles?.[0]) args.push('--env-file', fixture.envFiles[0])
  return [...args, 'config']
}

/** The v1 client spawned as a user runs it (the check that the warm client answers the same). */
function spawnedComposeV1Config(directory: string, fixture: FixtureCase): string {
  return execFileSync(composeV1, composeV1Arguments(fixture), {
    cwd: directory,
    env: { PATH: process.env.PATH, ...fixture.env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/**
 * The same client run warm (test/helpers/compose-v1.ts: its own code, forked from an interpreter
 * that has imported it), as ~100 spawns cost ~30 CPU-s.
 */
let warm: WarmComposeV1 | undefined
async function composeV1Output(directory: string, fixture: FixtureCase): Promise<string> {
  warm ??= new WarmComposeV1()
  const result = await warm.run(directory, composeV1Arguments(fixture), {
    PATH: process.env.PATH,
    ...fixture.env,
  })
  if (result.status !== 0)
    throw new Error(`docker-compose config failed (${result.status}) in ${directory}: ${result.stderr}`)
  return result.stdout
}

async function composeV1Config(directory: string, fixture: FixtureCase): Promise<unknown> {
  return parse(await composeV1Output(directory, fixture))
}

describe.skipIf(!existsSync(composeV1))('vault render matches docker-compose config (v1 1.29)', () => {
  afterAll(() => warm?.close())

  it('has at least 10 fixture stacks and compares at least 30 corpus stacks', () => {
    expect(stacks.length).toBeGreaterThanOrEqual(10)
    expect(corpusStacks.length).toBeGreaterThanOrEqual(30)
  })

  it.each(['process-env-precedence', 'env-file-flag', 'dotenv-interpolation', 'multi-file-merge'])(
    'the warm client prints what the spawned /usr/bin/docker-compose prints (%s)',
    async (stack) => {
      const directory = join(fixtures, stack)
      const fixture = caseOf(directory)
      expect(await composeV1Output(directory, fixture)).toBe(spawnedComposeV1Config(directory, fixture))
    },
  )

  it.each([
    ...stacks.map((stack) => [stack, join(fixtures, stack)]),
    ...corpusStacks.map((stack) => [`corpus: ${stack}`, join(corpus, stack)]),
  ])('%s', async (_, directory) => {
    const fixture = caseOf(directory)
    const expected = await composeV1Config(directory, fixture)
    const args = ['render', ...(fixture.files ?? []).flatMap((file) => ['-f', file])]
    for (const envFile of fixture.envFiles ?? []) args.push('--env-file', envFile)
    // in this process, with the spawned client's environment: only PATH and the fixture's variables
    const result = await runCommandLine(args, { cwd: directory, env: fixture.env, clean: true })
    expect(result.stderr).not.toMatch(/^Error:/m)
    expect(result.exitCode).toBe(0)
    expect(normalise(v1Shape(parse(result.stdout)))).toEqual(normalise(expected))
    if (!/host_ip:|selinux:/.test(result.stdout))
      expect(normalise(await roundTrip(result.stdout))).toEqual(normalise(expected))
  })
})
