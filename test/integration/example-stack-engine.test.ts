/**
 * Issue 8, with the engine: the example stack's own `socket-proxy` and `dashboard` services, rendered by
 * `vault render --env dev` from a real vault, run by the real docker-compose on the harness engine. Test-only
 * overrides keep traffic on loopback (network_mode: host, the proxy on 127.0.0.1:<port>), swap the images for
 * the lean proxy image built here (it holds node, which the consumer script needs), and mount the harness
 * socket. The rule list, read-only root filesystem and memory limits are the stack's. The consumer lists
 * containers through the proxy and is refused a DELETE with the proxy's message.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engineGrantsPrivileged } from '../harness/engine.js'
import { buildProxyImage } from '../harness/node-image.js'
import { freePort } from '../harness/ports.js'
import { runCli } from '../helpers/cli.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { createStackDir, fillBaseSecrets, type StackDir } from '../helpers/stack-env.js'
import { startVaultServer, type TestVault } from '../helpers/vault-server.js'

const engine = engineOrNull()
const composeFile = fileURLToPath(new URL('../../examples/stack/compose.yaml', import.meta.url))
const image = 'vault-test/stack-proxy:latest'
const project = 'vaultstacktest'

type Service = Record<string, unknown>

const consumerScript = `
const base = process.env.DOCKER_HOST.replace('tcp://', 'http://')
const list = await fetch(base + '/v1.41/containers/json?all=1')
const containers = await list.json()
console.log('LIST', list.status, containers.map((c) => c.Names[0]).join(','))
const victim = containers.find((c) => c.Names[0].includes('socket-proxy'))
const refused = await fetch(base + '/v1.41/containers/' + victim.Id + '?force=1', { method: 'DELETE' })
console.log('DELETE', refused.status, (await refused.json()).message)
`

/** The stack's two services with the loopback-only overrides of this test. */
function overrideServices(
  model: { services: Record<string, Service> },
  port: number,
  privileged: boolean,
): Record<string, Service> {
  const proxy = { ...model.services['socket-proxy']! }
  const dashboard = { ...model.services.dashboard! }
  for (const service of [proxy, dashboard]) {
    delete service.networks
    delete service.hostname
    delete service.depends_on
    delete service.command
    delete service.healthcheck
    service.image = image
    service.network_mode = 'host'
    service.restart = 'no'
  }
  proxy.privileged = privileged
  proxy.environment = { ...(proxy.environment as object), PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}` }
  proxy.volumes = [`${engine!.socket}:/var/run/docker.sock:ro`]
  const address = `tcp://127.0.0.1:${port}`
  dashboard.environment = { ...(dashboard.environment as object), ENGINE_HOST: address, DOCKER_HOST: address }
  dashboard.entrypoint = ['/usr/local/bin/node', '--input-type=module', '-e', consumerScript]
  return { 'socket-proxy': proxy, dashboard }
}

describe.skipIf(!engine)(
  `example stack: proxy and consumer on the engine (${unavailableReason('engine')})`,
  () => {
    let vault: TestVault
    let stack: StackDir
    let generated: string
    let port: number
    let privileged = false
    const compose = (...args: string[]) =>
      runCli(['run', '--env', 'dev', '--', 'docker-compose', '-p', project, '-f', generated, ...args], {
        env: { ...stack.env, DOCKER_HOST: engine!.dockerHost },
        timeout: 120_000,
      })

    beforeAll(async () => {
      buildProxyImage(engine!.dockerHost, image)
      privileged = engineGrantsPrivileged(engine!)
      vault = await startVaultServer()
      stack = createStackDir(vault)
      expect((await fillBaseSecrets(stack)).exitCode).toBe(0)
      const rendered = await runCli(['render', '--env', 'dev', '-f', composeFile, '--format', 'json'], {
        env: stack.env,
      })
      expect(rendered.exitCode, rendered.stderr).toBe(0)
      port = await freePort()
      const services = overrideServices(JSON.parse(rendered.stdout), port, privileged)
      generated = join(mkdtempSync(join(tmpdir(), 'vault-stack-engine-')), 'compose.json')
      writeFileSync(generated, JSON.stringify({ services }, null, 2))
    })

    afterAll(async () => {
      if (generated) await compose('down', '--timeout', '2')
      await vault?.stop()
    })

    it(`runs the stack's socket-proxy (read-only, 64m/32m${privileged ? ', privileged' : ''})`, async () => {
      const up = await compose('up', '-d', 'socket-proxy')
      expect(up.exitCode, up.stderr).toBe(0)
      const id = execFileSync(
        'docker',
        ['-H', engine!.dockerHost, 'ps', '-q', '--filter', `name=${project}_socket-proxy`],
        {
          encoding: 'utf8',
        },
      ).trim()
      const settings = JSON.parse(
        execFileSync(
          'docker',
          ['-H', engine!.dockerHost, 'inspect', '--format', '{{json .HostConfig}}', id],
          { encoding: 'utf8' },
        ),
      ) as { ReadonlyRootfs: boolean; Memory: number; MemoryReservation: number; Privileged: boolean }
      expect(settings).toMatchObject({
        ReadonlyRootfs: true,
        Memory: 64 * 1024 * 1024,
        MemoryReservation: 32 * 1024 * 1024,
        Privileged: privileged,
      })
      for (let attempt = 0; attempt < 50; attempt++) {
        const health = await runCli(['proxy', 'healthcheck', '--frontend-addr', `tcp://127.0.0.1:${port}`])
        if (health.exitCode === 0) return
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      throw new Error('the stack proxy did not become healthy')
    })

    it('lets the consumer list containers and refuses its DELETE with the proxy message', async () => {
      const run = await compose('run', '--rm', '--no-deps', 'dashboard')
      expect(run.exitCode, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/^LIST 200 .*socket-proxy/m)
      expect(run.stdout).toMatch(
        /^DELETE 403 vault proxy refused DELETE \/v1\.41\/containers\/[0-9a-f]{64}: no rule allows it$/m,
      )
      const stillThere = execFileSync(
        'docker',
        ['-H', engine!.dockerHost, 'ps', '-q', '--filter', `name=${project}_socket-proxy`],
        {
          encoding: 'utf8',
        },
      )
      expect(stillThere.trim()).not.toBe('')
    })
  },
)
