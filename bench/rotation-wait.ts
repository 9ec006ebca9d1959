/**
 * The cost of waiting for recreated services during `vault rotate` (issue 16: "one `docker-compose ps`
 * per service every 500 ms: 11.9 s of CPU in an 18.8 s rotation"). Three busybox services on a private
 * engine, both loops run for the same 10 s window: the baseline is the old loop (every 500 ms, one
 * `compose ps -q SERVICE` per service and one `docker inspect` per container), measured in this run;
 * the new one is readiness.ts (one `docker inspect` of all containers per poll, backoff 250 ms to 2 s,
 * ready after a 10 s stability window). CPU is this process plus its waited-for children
 * (/proc/self/stat utime+stime+cutime+cstime). Needs root, docker.io, docker-compose, busybox-static.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { execa } from 'execa'
import {
  detectComposeClient,
  inspectContainers,
  serviceContainerIds,
  type ComposeTarget,
} from '../src/process/compose.js'
import { waitUntilReady } from '../src/rotate/readiness.js'
import { engineUnavailableReason, startEngine, stopEngine } from '../test/harness/engine.js'
import { printTable } from './lib/timing.js'

const windowMs = 10_000
const services = ['db', 'app', 'worker']

function cpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0)
  return ticks / 100
}

async function measure(name: string, loop: () => Promise<number>): Promise<(string | number)[]> {
  const cpu = cpuSeconds()
  const started = Date.now()
  const processes = await loop()
  return [name, ((Date.now() - started) / 1000).toFixed(1), processes, (cpuSeconds() - cpu).toFixed(2)]
}

const reason = engineUnavailableReason()
if (reason) {
  console.log(`rotation-wait: skipped (${reason})`)
  process.exit(0)
}
const engine = await startEngine()
const dir = mkdtempSync('/tmp/vault-bench-wait-')
try {
  const keepAlive = `["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]`
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    `version: '2.4'\nservices:\n${services.map((service) => `  ${service}:\n    image: ${engine.busyboxImage}\n    network_mode: none\n    command: ${keepAlive}\n`).join('')}`,
  )
  const env = {
    PATH: process.env.PATH ?? '',
    DOCKER_HOST: engine.dockerHost,
    COMPOSE_PROJECT_NAME: 'benchwait',
  }
  const client = (await detectComposeClient(env))!
  const target: ComposeTarget = { client, cwd: dir, env }
  await execa(client.command, [...client.prefix, 'up', '-d'], { cwd: dir, env, extendEnv: false })
  const prefix = [...client.prefix]
  const before = await measure(
    'before: compose ps per service + inspect per container, every 500 ms',
    async () => {
      let processes = 0
      for (const deadline = Date.now() + windowMs; Date.now() < deadline; await sleep(500)) {
        for (const service of services) {
          const ids = (
            await execa(client.command, [...prefix, 'ps', '-q', service], { cwd: dir, env, extendEnv: false })
          ).stdout
          processes++
          for (const id of ids.split('\n').filter(Boolean)) {
            await execa('docker', ['inspect', '--format', '{{.State.Status}}', id], { env, extendEnv: false })
            processes++
          }
        }
      }
      return processes
    },
  )
  const after = await measure(
    'now: one docker inspect of all containers per poll, backoff 250 ms-2 s',
    async () => {
      const ids = await serviceContainerIds(target, services)
      const result = await waitUntilReady({
        services,
        probe: () => inspectContainers(target, ids),
        stableMs: windowMs,
        timeoutMs: windowMs * 3,
      })
      return result.polls + 1
    },
  )
  printTable(['wait loop (3 services, 10 s window)', 'wall s', 'processes', 'CPU s'], [before, after])
  await execa(client.command, [...prefix, 'down', '-t', '1'], { cwd: dir, env, extendEnv: false })
} finally {
  await stopEngine(engine)
  rmSync(dir, { recursive: true, force: true })
}
