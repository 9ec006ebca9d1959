/** Masking container environment in engine answers: bounded, never a truncated or unmasked body. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  createInspectMasker,
  createProcessListMasker,
  containerFactsOf,
  inspectTargetOf,
  needsEnvMasking,
  needsProcessListMasking,
  type MaskedAnswer,
} from '../../../src/proxy/inspect-redact.js'

/** What a masked value reads as (the README's `NAME=********`). */
const maskedValue = '********'

const canary = 'canary-7f3a9c-secret'
const inspect = {
  Id: 'abc',
  Name: '/db',
  Config: {
    Env: [`MYSQL_ROOT_PASSWORD=${canary}`, `URL=postgres://u:${canary}@db/x?a=b=c`, 'INHERITED', 'EMPTY='],
    Labels: { 'com.example': 'kept' },
  },
  HostConfig: { Memory: 1024 },
}

function run(
  body: string | Buffer,
  rawHeaders: string[] = ['Content-Type', 'application/json'],
  limit?: number,
) {
  const masker = createInspectMasker(rawHeaders, limit)
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body)
  let accepted = true
  for (let i = 0; i < bytes.length && accepted; i += 7) accepted = masker.push(bytes.subarray(i, i + 7))
  return masker.finish()
}

const bodyOf = (answer: MaskedAnswer) => (answer.ok ? answer.body.toString('utf8') : answer.message)

describe('needsEnvMasking', () => {
  it.each([
    ['GET', '/containers/db/json', 200, true],
    ['GET', '/v1.41/containers/0123abc/json', 200, true],
    ['GET', '/v4.0.0/libpod/containers/db/json', 200, true],
    ['GET', '/v1.41/containers/db/json/', 200, true],
    ['GET', '/v1.41./containers/db/json', 200, true],
    ['GET', '/v1.41../containers/db/json', 200, true],
    ['GET', '/v./containers/db/json', 200, true],
    ['GET', '/v1.41/containers/web/db/json', 200, true],
    ['GET', '/libpod/containers/db/json', 200, true],
    ['GET', '/v4.0.0./libpod/containers/db/json', 200, true],
    ['GET', '/containers/json', 200, false],
    ['GET', '/v1.41/containers/db/json', 404, false],
    ['HEAD', '/v1.41/containers/db/json', 200, false],
    ['GET', '/v1.41/containers/db/logs', 200, false],
    ['GET', '/v1.41/images/db/json', 200, true],
    ['GET', '/v1.41/images/registry.local:5000/team/app:1.2/json', 200, true],
    ['GET', '/v1.41./images/sha256:0123abcd/json', 200, true],
    ['GET', '/v1.41/images/json', 200, false],
    ['GET', '/v1.41/images/db/history', 200, false],
    ['GET', '/v1.41/services', 200, true],
    ['GET', '/v1.41/services/svc', 200, true],
    ['GET', '/services/svc/', 200, true],
    ['GET', '/v1.41./tasks', 200, true],
    ['GET', '/v1.41/tasks/dh0ef8dx', 200, true],
    ['GET', '/v1.41/plugins', 200, true],
    ['GET', '/v1.41/volumes', 200, true],
    ['GET', '/v1.41/volumes/share', 200, true],
    ['GET', '/volumes/a/b', 200, true],
    ['GET', '/v4.0.0/libpod/volumes/json', 200, true],
    ['GET', '/v4.0.0/libpod/volumes/share/json', 200, true],
    ['HEAD', '/v1.41/volumes/share', 200, false],
    ['GET', '/v1.41/networks/net', 200, false],
    ['GET', '/v1.41/plugins/canary-plugin:latest/json', 200, true],
    ['GET', '/v1.41/plugins/registry.example/acme/plugin:1/json', 200, true],
    ['GET', '/v1.41/services/svc/logs', 200, false],
    ['GET', '/v1.41/tasks/x/logs', 200, false],
    ['GET', '/v1.41/plugins/privileges', 200, false],
    ['POST', '/v1.41/services/create', 200, false],
  ])('%s %s %i: %s', (method, path, status, wanted) => {
    expect(needsEnvMasking(method, path, status)).toBe(wanted)
  })
})

describe('createInspectMasker', () => {
  it('masks every value, keeps names, other fields and exact integers; the canary never comes out', () => {
    const answer = run(JSON.stringify(inspect))
    const text = bodyOf(answer)
    expect(answer.ok).toBe(true)
    expect(text).not.toContain(canary)
    const masked = JSON.parse(text)
    expect(masked.Config.Env).toEqual([
      `MYSQL_ROOT_PASSWORD=${maskedValue}`,
      `URL=${maskedValue}`,
      'INHERITED',
      `EMPTY=${maskedValue}`,
    ])
    expect(masked.Config.Labels).toEqual(inspect.Config.Labels)
  })

  it('keeps an integer beyond 2^53 digit for digit', () => {
    const text = bodyOf(run('{"Config":{"Env":[]},"Size":12345678901234567891}'))
    expect(text).toContain('12345678901234567891')
  })

  it.each([
    ['an answer without Config', '{"Id":"x"}'],
    ['Env null', '{"Config":{"Env":null}}'],
  ])('forwards %s unchanged in meaning', (_name, body) => {
    expect(JSON.parse(bodyOf(run(body)))).toEqual(JSON.parse(body))
  })

  it.each([
    [
      'over the cap',
      JSON.stringify(inspect),
      ['Content-Type', 'application/json'],
      64,
      'larger than 64 bytes',
    ],
    ['gzip-encoded', JSON.stringify(inspect), ['Content-Encoding', 'gzip'], undefined, 'gzip-encoded'],
    ['not JSON', `Env=${canary}`, [], undefined, 'not JSON'],
    ['truncated JSON', JSON.stringify(inspect).slice(0, 60), [], undefined, 'not JSON'],
  ])('%s: a 502 with a clear message, no body of the answer', (_name, body, headers, limit, message) => {
    const answer = run(body, headers, limit)
    expect(answer.ok).toBe(false)
    if (answer.ok) return
    expect(answer.status).toBe(502)
    expect(answer.message).toContain(message)
    expect(answer.message).not.toContain(canary)
  })

  it('masks the environment values in command lines: Args, Cmd, Entrypoint, healthcheck Test', () => {
    const container = {
      Path: `/entrypoint.sh --token=${canary}`,
      Args: ['mysqld', `--password=${canary}`, '--port=3306'],
      Config: {
        Env: [`MYSQL_ROOT_PASSWORD=${canary}`, 'SHORT=abc', 'MODE=production'],
        Cmd: ['mysqld', `--password=${canary}`, 'abc'],
        Entrypoint: `sh -c 'exec mysqld -p${canary}'`,
        Healthcheck: { Test: ['CMD', 'mysqladmin', 'ping', `-p${canary}`], Retries: 3 },
        Labels: { mode: 'production' },
      },
    }
    const text = bodyOf(run(JSON.stringify(container)))
    expect(text).not.toContain(canary)
    const masked = JSON.parse(text)
    expect(masked.Path).toBe(`/entrypoint.sh --token=${maskedValue}`)
    expect(masked.Args).toEqual(['mysqld', `--password=${maskedValue}`, '--port=3306'])
    expect(masked.Config.Cmd).toEqual(['mysqld', `--password=${maskedValue}`, 'abc'])
    expect(masked.Config.Entrypoint).toBe(`sh -c 'exec mysqld -p${maskedValue}'`)
    expect(masked.Config.Healthcheck).toEqual({
      Test: ['CMD', 'mysqladmin', 'ping', `-p${maskedValue}`],
      Retries: 3,
    })
    // Labels are read by routers (Traefik): a value that is also an environment value stays there.
    expect(masked.Config.Labels).toEqual({ mode: 'production' })
  })

  it('masks a value containing another value whole (the longest first)', () => {
    const container = {
      Config: { Env: ['A=secret-part', 'B=secret-part-and-more'], Cmd: ['x=secret-part-and-more'] },
    }
    expect(JSON.parse(bodyOf(run(JSON.stringify(container)))).Config.Cmd).toEqual([`x=${maskedValue}`])
  })

  it("masks each listed service with its own values, not another's", () => {
    const service = (name: string, value: string) => ({
      Spec: {
        Name: name,
        TaskTemplate: {
          ContainerSpec: { Command: ['app', `--key=${value}`], Args: [value], Env: [`KEY=${value}`] },
        },
      },
    })
    const list = [service('one', `${canary}-one`), service('two', 'not-in-one')]
    list[1]!.Spec.TaskTemplate.ContainerSpec.Args.push(`${canary}-one`)
    const masked = JSON.parse(bodyOf(run(JSON.stringify(list))))
    expect(masked[0].Spec.TaskTemplate.ContainerSpec.Command).toEqual(['app', `--key=${maskedValue}`])
    expect(masked[0].Spec.TaskTemplate.ContainerSpec.Args).toEqual([maskedValue])
    expect(masked[1].Spec.TaskTemplate.ContainerSpec.Args).toEqual([maskedValue, `${canary}-one`])
  })

  it('masks driver options: log driver config, volume driver options of mounts; names kept', () => {
    const container = {
      HostConfig: {
        LogConfig: { Type: 'splunk', Config: { 'splunk-token': canary, 'splunk-url': 'https://s:8088' } },
        Mounts: [
          {
            Type: 'volume',
            Source: 'share',
            VolumeOptions: {
              DriverConfig: { Name: 'local', Options: { type: 'cifs', o: `password=${canary}` } },
            },
          },
        ],
        DnsOptions: ['timeout:3'],
      },
      Config: { Env: [], Labels: { 'com.example': 'kept' } },
    }
    const text = bodyOf(run(JSON.stringify(container)))
    expect(text).not.toContain(canary)
    const masked = JSON.parse(text)
    expect(masked.HostConfig.LogConfig).toEqual({
      Type: 'splunk',
      Config: { 'splunk-token': maskedValue, 'splunk-url': maskedValue },
    })
    expect(masked.HostConfig.Mounts[0].VolumeOptions.DriverConfig).toEqual({
      Name: 'local',
      Options: { type: maskedValue, o: maskedValue },
    })
    expect(masked.HostConfig.DnsOptions).toEqual(['timeout:3'])
    expect(masked.Config.Labels).toEqual({ 'com.example': 'kept' })
  })

  it("masks a volume's driver options, in a list and alone (Docker's and libpod's shapes)", () => {
    const volume = {
      Name: 'share',
      Driver: 'local',
      Mountpoint: '/var/lib/docker/volumes/share/_data',
      Options: { device: '//nas/share', o: `username=u,password=${canary}`, type: 'cifs' },
      Labels: { 'com.docker.compose.project': 'stack' },
      Scope: 'local',
    }
    for (const answer of [volume, { Volumes: [volume], Warnings: null }, [volume]]) {
      const text = bodyOf(run(JSON.stringify(answer)))
      expect(text).not.toContain(canary)
      expect(text).toContain('"Labels":{"com.docker.compose.project":"stack"}')
      expect(text).toContain(
        `"Options":{"device":"${maskedValue}","o":"${maskedValue}","type":"${maskedValue}"}`,
      )
    }
  })

  it('masks what a failing healthcheck printed (State.Health.Log[].Output), other log fields kept', () => {
    const health = {
      ...inspect,
      State: {
        Health: {
          Status: 'unhealthy',
          Log: [{ Start: 's', End: 'e', ExitCode: 1, Output: `sh: ${canary}: wrong password\n` }],
        },
      },
    }
    const answer = JSON.parse(bodyOf(run(JSON.stringify(health))))
    expect(answer.State.Health.Log).toEqual([
      { Start: 's', End: 'e', ExitCode: 1, Output: `sh: ${maskedValue}: wrong password\n` },
    ])
    expect(JSON.stringify(answer)).not.toContain(canary)
  })

  it('masks build arguments the classic builder recorded in an image (ContainerConfig.Cmd: |N NAME=value ...)', () => {
    const token = 'buildarg-canary-88e1'
    const image = {
      Id: 'sha256:1',
      ContainerConfig: {
        Cmd: ['|2', `TOKEN=${token}`, 'EMPTY=', '/bin/sh', '-c', `curl -u me:${token} x && echo |1`],
        Env: ['PATH=/bin'],
      },
      Config: { Cmd: ['|1', 'sh'], Env: ['PATH=/bin'] },
    }
    const answer = JSON.parse(bodyOf(run(JSON.stringify(image))))
    expect(answer.ContainerConfig.Cmd).toEqual([
      '|2',
      `TOKEN=${maskedValue}`,
      `EMPTY=${maskedValue}`,
      '/bin/sh',
      '-c',
      `curl -u me:${maskedValue} x && echo |1`,
    ])
    expect(answer.Config.Cmd).toEqual(['|1', 'sh'])
    expect(JSON.stringify(answer)).not.toContain(token)
  })

  it('stops accepting once the cap is passed', () => {
    const masker = createInspectMasker([], 10)
    expect(masker.push(Buffer.alloc(10))).toBe(true)
    expect(masker.push(Buffer.alloc(1))).toBe(false)
    expect(masker.push(Buffer.alloc(1))).toBe(false)
  })
})

/** Real engine answers (test/fixtures/proxy-env-answers/SOURCE.md) holding CANARY_RECORDED_9c1e. */
describe('masking answers recorded from Docker Engine 20.10 (swarm services and tasks, plugins)', () => {
  const recorded = 'CANARY_RECORDED_9c1e'
  const fixture = (name: string) =>
    readFileSync(new URL(`../../fixtures/proxy-env-answers/${name}.json`, import.meta.url), 'utf8')

  /** The value at a dotted path, `0.Spec.Env`. */
  const at = (value: unknown, path: string): unknown =>
    path.split('.').reduce((node, key) => (node as Record<string, unknown>)[key], value)

  it.each([
    ['services', '0.Spec.TaskTemplate.ContainerSpec.Env', 2],
    ['services', '0.PreviousSpec.TaskTemplate.ContainerSpec.Env', 1],
    ['service', 'Spec.TaskTemplate.ContainerSpec.Env', 1],
    ['tasks', '0.Spec.ContainerSpec.Env', 2],
    ['plugins', '0.Settings.Env', 1],
    ['plugin', 'Settings.Env', 1],
  ])('%s %s: every value masked, names kept', (name, envPath, count) => {
    const original = fixture(name)
    expect(original).toContain(recorded)
    const answer = run(original)
    expect(answer.ok).toBe(true)
    const text = bodyOf(answer)
    expect(text).not.toContain(recorded)
    const env = at(JSON.parse(text), envPath) as string[]
    expect(env).toHaveLength(count)
    for (const entry of env) expect(entry).toMatch(/^[A-Z_]+=\*{8}$/)
  })

  it('libpod inspect: the values in the podman run that made the container (CreateCommand) are masked', () => {
    const original = fixture('libpod-inspect')
    expect(original).toContain(recorded)
    const text = bodyOf(run(original))
    expect(text).not.toContain(recorded)
    const masked = JSON.parse(text)
    expect(masked.Config.CreateCommand).toEqual([
      'podman',
      'run',
      '-d',
      '--name',
      'test',
      '-e',
      `DB_PASSWORD=${maskedValue}`,
      `--env=API_TOKEN=${maskedValue}`,
      '--health-cmd',
      `pg_isready --password=${maskedValue}`,
      '-p',
      '8888:80',
      'registry/org/image:latest',
      '--db-password',
      maskedValue,
    ])
    // Everything else is as the engine sent it: the original with the two values replaced by hand.
    const expected = JSON.parse(
      original.replaceAll(`token-${recorded}`, maskedValue).replaceAll(recorded, maskedValue),
    ) as { Config: { Env: string[] } }
    expected.Config.Env = expected.Config.Env.map((entry) => entry.replace(/=.*/, `=${maskedValue}`))
    expect(masked).toEqual(expected)
  })

  it('a plugin declaration keeps Name and Description, its Value masked', () => {
    const masked = JSON.parse(bodyOf(run(fixture('plugin'))))
    expect(masked.Config.Env).toEqual([
      { Description: 'a secret', Name: 'PLUGIN_SECRET', Settable: ['value'], Value: maskedValue },
    ])
    expect(masked.Name).toBe(JSON.parse(fixture('plugin')).Name)
  })
})

describe('process lists (top): masked with the environment values of their container', () => {
  /** `docker top` of a container whose shell started a process with `$SECRET` in its arguments. */
  const top = {
    Titles: ['UID', 'PID', 'PPID', 'C', 'STIME', 'TTY', 'TIME', 'CMD'],
    Processes: [
      ['root', '4242', '4221', '0', '06:00', '?', '00:00:00', `redis-server *:6379 --requirepass ${canary}`],
      ['root', '4250', '4242', '0', '06:00', '?', '00:00:00', 'sleep 600'],
    ],
  }

  it.each([
    ['GET', '/v1.41/containers/db/top', 200, true],
    ['GET', '/containers/web/db/top/', 200, true],
    ['GET', '/v4.0.0/libpod/containers/db/top', 200, true],
    ['GET', '/v1.41./containers/0123abc/top', 200, true],
    ['GET', '/v1.41/containers/db/top', 404, false],
    ['HEAD', '/v1.41/containers/db/top', 200, false],
    ['GET', '/v1.41/containers/db/json', 200, false],
    ['GET', '/v1.41/containers/json', 200, false],
  ])('needsProcessListMasking(%s %s %s) is %s', (method, path, status, expected) => {
    expect(needsProcessListMasking(method, path, status)).toBe(expected)
  })

  it.each([
    ['/v1.41/containers/db/top?ps_args=aux', '/v1.41/containers/db/json'],
    ['/containers/web/db/top/', '/containers/web/db/json'],
    ['/v4.0.0/libpod/containers/db/top?stream=false', '/v4.0.0/libpod/containers/db/json'],
    ['/v1.41/containers/db/logs?follow=1&stdout=1', '/v1.41/containers/db/json'],
  ])('the inspect of the container of %s is %s', (topTarget, inspectTarget) => {
    expect(inspectTargetOf(topTarget)).toBe(inspectTarget)
  })

  it('masks the values in every process line; titles and the rest stay', () => {
    const { values } = containerFactsOf(Buffer.from(JSON.stringify(inspect)))!
    const masker = createProcessListMasker(['Content-Type', 'application/json'])
    expect(masker.push(Buffer.from(JSON.stringify(top)))).toBe(true)
    const answer = masker.finish(values)
    expect(bodyOf(answer)).not.toContain(canary)
    expect(JSON.parse(bodyOf(answer))).toEqual({
      Titles: top.Titles,
      Processes: [
        [...top.Processes[0]!.slice(0, 7), `redis-server *:6379 --requirepass ${maskedValue}`],
        top.Processes[1],
      ],
    })
  })

  it('containerFactsOf: the values that may be secrets (not PATH or HOSTNAME) and Tty, undefined for non-JSON', () => {
    const container = {
      Config: { Tty: true, Env: ['PATH=/usr/bin', 'HOSTNAME=abc123', `SECRET=${canary}`, 'FLAG'] },
    }
    expect(containerFactsOf(Buffer.from(JSON.stringify(container)))).toEqual({ values: [canary], tty: true })
    expect(containerFactsOf(Buffer.from('{"Config":{"Env":[]}}'))).toEqual({ values: [], tty: false })
    expect(containerFactsOf(Buffer.from('<html>'))).toBeUndefined()
  })

  // procps prints each control character of a command line as a blank (ps -ef, checked against the
  // engine's top in test/integration/adversarial/proxy/env-exposure-streams.test.ts) or "?": never as it is.
  it('masks a multi-line value (a PEM key) as ps shows it, its newlines as ? or blanks', () => {
    const pem = `-----BEGIN KEY-----\nMII${canary}\n-----END KEY-----`
    const list = {
      Titles: ['PID', 'CMD'],
      Processes: [
        ['1', `sh -c sleep ${pem.replaceAll('\n', '?')}`],
        ['2', `app ${pem.replaceAll('\n', ' ')}`],
        ['3', `app\t${pem}`],
      ],
    }
    const masker = createProcessListMasker([])
    masker.push(Buffer.from(JSON.stringify(list)))
    const answer = JSON.parse(bodyOf(masker.finish([pem])))
    expect(answer.Processes.map((p: string[]) => p[1])).toEqual([
      `sh -c sleep ${maskedValue}`,
      `app ${maskedValue}`,
      `app\t${maskedValue}`,
    ])
  })

  it('an oversized or non-JSON process list is a 502, never forwarded', () => {
    const big = createProcessListMasker([], 16)
    expect(big.push(Buffer.from(JSON.stringify(top)))).toBe(false)
    expect(bodyOf(big.finish([canary]))).toContain('larger than 16 bytes')
    const text = createProcessListMasker([])
    text.push(Buffer.from(`PID CMD\n1 app --key ${canary}`))
    const answer = text.finish([canary])
    expect(answer.ok).toBe(false)
    expect(bodyOf(answer)).not.toContain(canary)
  })
})
