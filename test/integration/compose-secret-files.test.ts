/**
 * Compose secrets with an `environment:` source under compose v1 (the docker-compose client), on the
 * harness's private engine: `vault run` hands the value to the container as /run/secrets/<name> from
 * a private tmpfs directory (mode 700, file mode 444 unless the long syntax says otherwise), the value is absent from `docker inspect`,
 * `vault rotate` recreates the service with the new value in the file, and `down` removes the directory.
 * A one-off `run` keeps it for the running stack; after tmpfs is emptied (a reboot) the engine cannot
 * start the service (its bind source is gone) until `up -d` writes the files again.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import SecretsGet from '../../src/commands/secrets/get.js'
import { runCli } from '../helpers/cli.js'
import { runCommand } from '../helpers/run-command.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { startDeliveryVault, type DeliveryVault } from './delivery-fixture.js'

const engine = engineOrNull()
const canary = 'CANARY-secret-file-7c41d2'

describe.skipIf(!engine)(
  `compose secrets as files with docker-compose v1 (${unavailableReason('engine')})`,
  () => {
    let vault: DeliveryVault
    let stack: string
    const project = `vaultsecretfiles${process.pid}`
    const env = () => ({ ...vault.env, DOCKER_HOST: engine!.dockerHost, COMPOSE_PROJECT_NAME: project })
    const docker = (...args: string[]) =>
      execFileSync('docker', args, { env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost } })
        .toString('utf8')
        .trim()
    const compose = (...args: string[]) =>
      runCli(['run', '--env', 'dev', '--', 'docker-compose', ...args], {
        env: env(),
        cwd: stack,
        timeout: 120_000,
      })
    const secretDirectories = () =>
      readdirSync('/dev/shm').filter((name) => name.startsWith('vault-secrets-'))

    beforeAll(async () => {
      vault = await startDeliveryVault('sqlite', { DB_PASSWORD: canary })
      stack = mkdtempSync(join(vault.home.dir, 'stack-'))
      writeFileSync(
        join(stack, 'compose.yaml'),
        [
          'services:',
          '  db:',
          `    image: ${engine!.busyboxImage}`,
          '    network_mode: none',
          `    command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1; done"]`,
          '    environment:',
          '      POSTGRES_PASSWORD_FILE: /run/secrets/db_password',
          '    secrets: [db_password]',
          'secrets:',
          '  db_password:',
          '    environment: DB_PASSWORD',
          '',
        ].join('\n'),
      )
    })
    afterAll(async () => {
      if (stack) await compose('down', '-t', '1')
      await vault?.stop()
    })

    it('the container reads the value from /run/secrets, rotate rewrites it; docker inspect never shows it', async () => {
      const before = new Set(secretDirectories())
      const up = await compose('up', '-d')
      expect(up.exitCode, up.stderr).toBe(0)
      const id = docker('ps', '-q', '--filter', `label=com.docker.compose.project=${project}`)
      expect(id).not.toBe('')
      expect(docker('exec', id, 'cat', '/run/secrets/db_password')).toBe(canary)
      expect(docker('exec', id, 'sh', '-c', 'printf %s "$POSTGRES_PASSWORD_FILE"')).toBe(
        '/run/secrets/db_password',
      )
      expect(docker('inspect', id)).not.toContain(canary)
      expect(up.stdout + up.stderr).not.toContain(canary)

      const created = secretDirectories().filter((name) => !before.has(name))
      expect(created).toHaveLength(1)
      const directory = join('/dev/shm', created[0]!)
      expect(statSync(directory).mode & 0o777).toBe(0o700)
      expect(statSync(join(directory, 'secret-db_password')).mode & 0o777).toBe(0o444)

      const rotated = await runCli(['rotate', 'DB_PASSWORD', '--env', 'dev', '--json'], {
        env: env(),
        cwd: stack,
        timeout: 120_000,
      })
      expect(rotated.exitCode, rotated.stderr).toBe(0)
      expect(JSON.parse(rotated.stdout)).toMatchObject({
        name: 'DB_PASSWORD',
        services: [{ service: 'db', ok: true }],
      })
      const newValue = (
        await runCommand(SecretsGet, ['DB_PASSWORD', '--env', 'dev'], { env: env() })
      ).stdout.trim()
      expect(newValue).not.toBe(canary)
      const recreated = docker('ps', '-q', '--filter', `label=com.docker.compose.project=${project}`)
      expect(recreated).not.toBe(id)
      expect(docker('exec', recreated, 'cat', '/run/secrets/db_password')).toBe(newValue)
      expect(docker('inspect', recreated)).not.toContain(newValue)

      const down = await compose('down', '-t', '1')
      expect(down.exitCode, down.stderr).toBe(0)
      expect(existsSync(directory)).toBe(false)
    })

    it('containers running as non-root users read their secret: mode 0444 by default, uid, gid and mode honoured', async () => {
      const usersStack = mkdtempSync(join(vault.home.dir, 'stack-users-'))
      const usersProject = `${project}users`
      const sleeper = `    command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1; done"]`
      writeFileSync(
        join(usersStack, 'compose.yaml'),
        [
          'services:',
          '  nobody:',
          `    image: ${engine!.busyboxImage}`,
          '    network_mode: none',
          "    user: '65534:65534'",
          sleeper,
          '    secrets: [db_password]',
          '  owner:',
          `    image: ${engine!.busyboxImage}`,
          '    network_mode: none',
          "    user: '1001:1002'",
          sleeper,
          '    secrets:',
          '      - source: db_password',
          '        target: owned',
          "        uid: '1001'",
          "        gid: '1002'",
          '        mode: 0400',
          'secrets:',
          '  db_password:',
          '    environment: DB_PASSWORD',
          '',
        ].join('\n'),
      )
      const usersEnv = { ...env(), COMPOSE_PROJECT_NAME: usersProject }
      const usersCompose = (...args: string[]) =>
        runCli(['run', '--env', 'dev', '--', 'docker-compose', ...args], {
          env: usersEnv,
          cwd: usersStack,
          timeout: 120_000,
        })
      try {
        const up = await usersCompose('up', '-d')
        expect(up.exitCode, up.stderr).toBe(0)
        const value = (
          await runCommand(SecretsGet, ['DB_PASSWORD', '--env', 'dev'], { env: env() })
        ).stdout.trim()
        const container = (service: string) =>
          docker(
            'ps',
            '-q',
            '--filter',
            `label=com.docker.compose.project=${usersProject}`,
            '--filter',
            `label=com.docker.compose.service=${service}`,
          )
        expect(docker('exec', container('nobody'), 'id', '-u')).toBe('65534')
        expect(docker('exec', container('nobody'), 'cat', '/run/secrets/db_password')).toBe(value)
        expect(docker('exec', container('nobody'), 'stat', '-c', '%a', '/run/secrets/db_password')).toBe(
          '444',
        )
        expect(docker('exec', container('owner'), 'id', '-u')).toBe('1001')
        expect(docker('exec', container('owner'), 'cat', '/run/secrets/owned')).toBe(value)
        expect(docker('exec', container('owner'), 'stat', '-c', '%a %u %g', '/run/secrets/owned')).toBe(
          '400 1001 1002',
        )
        // mode 0400 owned by 1001: another non-root user of the container cannot read it
        const other = spawnSync(
          'docker',
          ['exec', '--user', '65534', container('owner'), 'cat', '/run/secrets/owned'],
          { env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost } },
        )
        expect(other.status).not.toBe(0)
        expect(String(other.stdout)).not.toContain(value)
      } finally {
        const down = await usersCompose('down', '-t', '1')
        expect(down.exitCode, down.stderr).toBe(0)
      }
    })

    it('a one-off run keeps the files the stack mounts, and up -d writes them again after a reboot', async () => {
      const before = new Set(secretDirectories())
      const up = await compose('up', '-d')
      expect(up.exitCode, up.stderr).toBe(0)
      const directory = join(
        '/dev/shm',
        secretDirectories().find((name) => !before.has(name))!,
      )
      const id = docker('ps', '-q', '--filter', `label=com.docker.compose.project=${project}`)
      const value = docker('exec', id, 'cat', '/run/secrets/db_password')

      const oneOff = await compose('run', '--rm', 'db', 'true')
      expect(oneOff.exitCode, oneOff.stderr).toBe(0)
      expect(existsSync(join(directory, 'secret-db_password'))).toBe(true)
      docker('restart', '-t', '1', id)
      expect(docker('exec', id, 'cat', '/run/secrets/db_password')).toBe(value)

      // A reboot empties tmpfs: the engine cannot start the container while its file is gone.
      docker('stop', '-t', '1', id)
      rmSync(directory, { recursive: true, force: true })
      const start = spawnSync('docker', ['start', id], {
        env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost },
      })
      expect(start.status).not.toBe(0)
      expect(String(start.stderr)).toContain('bind source path does not exist')
      const again = await compose('up', '-d')
      expect(again.exitCode, again.stderr).toBe(0)
      const after = docker('ps', '-q', '--filter', `label=com.docker.compose.project=${project}`)
      expect(docker('exec', after, 'cat', '/run/secrets/db_password')).toBe(value)

      const down = await compose('down', '-t', '1')
      expect(down.exitCode, down.stderr).toBe(0)
      expect(existsSync(directory)).toBe(false)
    })
  },
)
