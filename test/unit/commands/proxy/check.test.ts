/** `vault proxy check` in process (moved from the spawned test/integration/proxy-cli.test.ts). */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import ProxyCheck from '../../../../src/commands/proxy/check.js'
import { runCommand } from '../../../helpers/run-command.js'

describe('vault proxy check', () => {
  it.each([
    [['GET', '/v1.41/containers/json?all=1'], 0, 'allow GET /v1.41/containers/json', 'default rules line 4'],
    [['HEAD', '/_ping'], 0, 'allow HEAD /_ping', 'built-in line 2'],
    [
      ['POST', '/v1.41/containers/x/%2e%2e/%2e%2e/images/create'],
      10,
      'deny POST /v1.41/images/create',
      'no rule allows it',
    ],
    [
      ['--preset', 'read-only', 'POST', '/v1.41/containers/x/start'],
      10,
      'deny POST /v1.41/containers/x/start',
      'no rule',
    ],
    [['--rules', 'POST /x|/y', 'POST', '/y'], 0, 'allow POST /y', 'PROXY_RULES line 1'],
    [['--no-builtin-rules', '--rules', 'GET /x', 'GET', '/_ping'], 10, 'deny GET /_ping', 'no rule'],
    [['GET', '/_ping%zz'], 10, 'deny GET /_ping%zz', 'percent-escape'],
  ])('check %j exits %i', async (args, exitCode, stdout, stderr) => {
    const result = await runCommand(ProxyCheck, args)
    expect(result.exitCode).toBe(exitCode)
    expect(result.stdout).toBe(`${stdout}\n`)
    expect(result.stderr).toContain(stderr)
  })

  it('check --json returns the decision object', async () => {
    const result = await runCommand(ProxyCheck, ['--json', 'DELETE', '/v1.41/volumes/x'])
    expect(result.exitCode).toBe(10)
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: 'deny', canonicalPath: '/v1.41/volumes/x' })
  })

  it('check reads PROXY_RULES_FILE and names the bad line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-cli-'))
    writeFileSync(join(dir, 'r.rules'), '# fine\nGET /a\nGET %NOPE%\n')
    const result = await runCommand(ProxyCheck, ['GET', '/a'], {
      env: { PROXY_RULES_FILE: join(dir, 'r.rules') },
    })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/r\.rules line 3: unknown variable %NOPE%/)
  })

  it('check --compose-policy takes a path with a blank, and names the published port it refuses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-cli-'))
    const compose = join(dir, 'my stack', 'compose.yaml')
    mkdirSync(join(dir, 'my stack'))
    writeFileSync(
      compose,
      "name: app\nservices:\n  db:\n    image: postgres\n    ports: ['127.0.0.1:5432:5432']\n",
    )
    const body = (hostIp: string) => {
      const file = join(dir, `create-${hostIp}.json`)
      writeFileSync(
        file,
        JSON.stringify({
          Image: 'postgres',
          Labels: { 'com.docker.compose.project': 'app', 'com.docker.compose.service': 'db' },
          HostConfig: { PortBindings: { '5432/tcp': [{ HostIp: hostIp, HostPort: '5432' }] } },
        }),
      )
      return file
    }
    const check = (file: string) =>
      runCommand(ProxyCheck, [
        '--compose-policy',
        compose,
        'POST',
        '/v1.41/containers/create',
        '--body',
        file,
      ])
    const allowed = await check(body('127.0.0.1'))
    expect(allowed.exitCode, allowed.stderr).toBe(0)
    const refused = await check(body('0.0.0.0'))
    expect(refused.exitCode).toBe(10)
    expect(refused.stderr).toContain('field: HostConfig.PortBindings.5432/tcp')
    expect(refused.stderr).toContain(
      'service "db" publishes 5432/tcp only at 127.0.0.1:5432, not "0.0.0.0:5432"',
    )
  })
})
