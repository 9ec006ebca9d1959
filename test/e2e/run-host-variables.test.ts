/**
 * Issue 14, item 6: an identity that may only write one environment stores DOCKER_HOST, BASH_ENV and
 * NODE_OPTIONS there. The deploy host's `vault run` and `eval "$(vault export --format shell)"` must not
 * let them reach a process: the built CLI refuses (exit 4) and the child never starts, so no engine
 * connection reaches the attacker's DOCKER_HOST (a canary listener on 127.0.0.1), BASH_ENV is never
 * sourced and NODE_OPTIONS never preloads (both would write a canary file). `--allow-env` names the
 * ones meant to be there; without the guard the same run shows all three effects (checked below, so
 * this test can fail).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSession } from '../../src/client/session.js'
import { VaultApi } from '../../src/client/vault-api.js'
import { runCli } from '../helpers/cli.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'

let server: TestVault
let home: TempHome
let env: Record<string, string>
let canaryEngine: Server
let engineConnections = 0
const work = mkdtempSync(join(tmpdir(), 'vault-host-vars-'))
const sourcedMarker = join(work, 'bash-env-sourced')
const preloadedMarker = join(work, 'node-options-preloaded')
const childReport = join(work, 'child-report.json')

/**
 * The deploy command: bash (reads BASH_ENV), then node (reads NODE_OPTIONS), which acts as a docker
 * client would: it connects to DOCKER_HOST, and reports the environment it saw.
 */
const childFile = join(work, 'deploy.cjs')
const childScript = `const fs = require('node:fs')
const net = require('node:net')
const host = process.env.DOCKER_HOST ?? ''
fs.writeFileSync(${JSON.stringify(childReport)}, JSON.stringify({ DOCKER_HOST: host, BASH_ENV: process.env.BASH_ENV }))
const m = /^tcp:\\/\\/127\\.0\\.0\\.1:(\\d+)$/.exec(host)
if (m) {
  const s = net.connect(Number(m[1]), '127.0.0.1', () => s.end())
  s.on('error', () => {})
}
`
// bash skips BASH_ENV when its stdin is a socket (it assumes rshd/sshd), and the test's pipes are
// socketpairs: the deploy script gives bash /dev/null as stdin, as a CI job or a terminal would.
const deployScript = join(work, 'deploy.sh')
const deployCommand = ['--', 'sh', deployScript]

beforeAll(async () => {
  canaryEngine = createServer((socket) => {
    engineConnections++
    socket.destroy()
  })
  await new Promise<void>((resolve) => canaryEngine.listen(0, '127.0.0.1', resolve))
  const enginePort = (canaryEngine.address() as { port: number }).port
  server = await startVaultServer({})
  home = createTempHome()
  env = {
    ...home.env,
    ...deploymentVariables(server),
  }
  writeFileSync(childFile, childScript)
  writeFileSync(deployScript, `exec bash -c 'node "$0"' ${childFile} </dev/null\n`)
  writeFileSync(join(work, 'bash-env.sh'), `echo sourced > ${sourcedMarker}\n`)
  writeFileSync(
    join(work, 'preload.cjs'),
    `require('node:fs').writeFileSync(${JSON.stringify(preloadedMarker)}, 'x')\n`,
  )
  const writer = await server.createIdentity('writer', { dev: ['write'] })
  const writerApi = new VaultApi(
    createSession(
      { domain: server.url, projectId: server.projectId, ...writer, insecure: false },
      { VAULT_KEYCHAIN: 'off', XDG_STATE_HOME: join(work, 'writer-state') },
    ),
  )
  await writerApi.putSecret('APP_TOKEN', 'app-token-1', 'dev')
  await writerApi.putSecret('DOCKER_HOST', `tcp://127.0.0.1:${enginePort}`, 'dev')
  await writerApi.putSecret('BASH_ENV', join(work, 'bash-env.sh'), 'dev')
  await writerApi.putSecret('NODE_OPTIONS', `--require ${join(work, 'preload.cjs')}`, 'dev')
})
afterAll(async () => {
  await server?.stop()
  home?.cleanup()
  canaryEngine?.close()
  rmSync(work, { recursive: true, force: true })
})

function effects() {
  const seen = {
    engineConnections,
    bashEnvSourced: existsSync(sourcedMarker),
    nodeOptionsPreloaded: existsSync(preloadedMarker),
    childStarted: existsSync(childReport),
  }
  for (const file of [sourcedMarker, preloadedMarker, childReport]) rmSync(file, { force: true })
  engineConnections = 0
  return seen
}

const none = { engineConnections: 0, bashEnvSourced: false, nodeOptionsPreloaded: false, childStarted: false }

describe('secrets that control the host, written by a write-only identity', () => {
  it('vault run refuses them all (exit 4) and starts nothing: no engine connection, nothing sourced or preloaded', async () => {
    const result = await runCli(['run', '--env', 'dev', ...deployCommand], { env, cwd: work })
    expect(result.exitCode).toBe(4)
    expect(result.stderr).toContain('refusing to set BASH_ENV, DOCKER_HOST, NODE_OPTIONS from the vault')
    expect(result.stderr).toContain('--allow-env BASH_ENV --allow-env DOCKER_HOST --allow-env NODE_OPTIONS')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(effects()).toEqual(none)
  })

  it('--prefer-host-env does not let them through either', async () => {
    const result = await runCli(['run', '--env', 'dev', '--prefer-host-env', ...deployCommand], {
      env,
      cwd: work,
    })
    expect(result.exitCode).toBe(4)
    expect(effects()).toEqual(none)
  })

  it('allowing one name is not allowing the others', async () => {
    const result = await runCli(['run', '--env', 'dev', '--allow-env', 'DOCKER_HOST', ...deployCommand], {
      env,
      cwd: work,
    })
    expect(result.exitCode).toBe(4)
    expect(result.stderr).toContain('refusing to set BASH_ENV, NODE_OPTIONS from the vault')
    expect(effects()).toEqual(none)
  })

  it('with every name allowed the child runs and all three take effect (the canaries can see an attack)', async () => {
    const result = await runCli(
      [
        'run',
        '--env',
        'dev',
        '--allow-env',
        'DOCKER_HOST,BASH_ENV',
        '--allow-env',
        'NODE_OPTIONS',
        ...deployCommand,
      ],
      { env, cwd: work },
    )
    expect(result.exitCode, result.stderr).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const report = JSON.parse(readFileSync(childReport, 'utf8')) as { DOCKER_HOST: string }
    expect(report.DOCKER_HOST).toMatch(/^tcp:\/\/127\.0\.0\.1:/)
    expect(effects()).toEqual({
      engineConnections: 1,
      bashEnvSourced: true,
      nodeOptionsPreloaded: true,
      childStarted: true,
    })
  })

  it('export --format shell refuses them (exit 4, nothing on stdout to eval); json is data', async () => {
    const shell = await runCli(['export', '--env', 'dev', '--format', 'shell'], { env, cwd: work })
    expect(shell.exitCode).toBe(4)
    expect(shell.stdout).toBe('')
    expect(shell.stderr).toContain('refusing to set BASH_ENV, DOCKER_HOST, NODE_OPTIONS')
    const allowed = await runCli(
      ['export', '--env', 'dev', '--format', 'shell', '--allow-env', 'BASH_ENV,DOCKER_HOST,NODE_OPTIONS'],
      { env, cwd: work },
    )
    expect(allowed.exitCode).toBe(0)
    expect(allowed.stdout).toContain("export DOCKER_HOST='tcp://127.0.0.1:")
    const json = await runCli(['export', '--env', 'dev', '--format', 'json'], { env, cwd: work })
    expect(json.exitCode).toBe(0)
  })

  it('export dotenv on stdout or into .env (which compose reads) refuses them; another file warns', async () => {
    const stdout = await runCli(['export', '--env', 'dev'], { env, cwd: work })
    expect(stdout.exitCode).toBe(4)
    expect(stdout.stdout).toBe('')
    expect(stdout.stderr).toContain('refusing to set BASH_ENV, DOCKER_HOST, NODE_OPTIONS')
    const dotEnv = join(work, 'stack', '.env')
    mkdirSync(join(work, 'stack'), { recursive: true })
    const intoDotEnv = await runCli(['export', '--env', 'dev', '--output-file', dotEnv], { env, cwd: work })
    expect(intoDotEnv.exitCode).toBe(4)
    expect(existsSync(dotEnv)).toBe(false)
    // compose really would take its engine from such a .env: the refusal is what keeps it away
    const allowed = await runCli(
      ['export', '--env', 'dev', '--output-file', dotEnv, '--allow-env', 'BASH_ENV,DOCKER_HOST,NODE_OPTIONS'],
      { env, cwd: work },
    )
    expect(allowed.exitCode, allowed.stderr).toBe(0)
    expect(readFileSync(dotEnv, 'utf8')).toContain("DOCKER_HOST='tcp://127.0.0.1:")
    const other = join(work, 'app.env')
    const intoOther = await runCli(['export', '--env', 'dev', '--output-file', other], { env, cwd: work })
    expect(intoOther.exitCode, intoOther.stderr).toBe(0)
    expect(intoOther.stderr).toContain(
      'Warning: BASH_ENV, DOCKER_HOST, NODE_OPTIONS control the host: do not use',
    )
    expect(readFileSync(other, 'utf8')).toContain('APP_TOKEN=')
  })

  it('vault secrets set warns when it stores such a name, and stores it', async () => {
    const result = await runCli(['secrets', 'set', 'GIT_SSH_COMMAND', '--env', 'staging'], {
      env,
      cwd: work,
      input: 'ssh -i /dev/null',
    })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/Warning: GIT_SSH_COMMAND controls the host.*--allow-env GIT_SSH_COMMAND/)
    const plain = await runCli(['secrets', 'set', 'APP_SECRET', '--env', 'staging'], {
      env,
      cwd: work,
      input: 'x',
    })
    expect(plain.stderr).not.toMatch(/controls the host/)
  })
})

describe('vault run passes the command line after -- verbatim', () => {
  it('sh -c with positional arguments reaches the child in order', async () => {
    const result = await runCli(
      ['run', '--env', 'prod', '--', 'sh', '-c', 'printf "%s|" "$0" "$@"', 'sh', 'a b', '-c', '--'],
      {
        env,
        cwd: work,
      },
    )
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe('sh|a b|-c|--|')
  })
})
