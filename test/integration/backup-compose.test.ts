/**
 * `vault restore --compose` with the real compose client against the private engine: the archive is
 * checked before anything is stopped (a bad one leaves the vault container running, untouched); a
 * good one stops the vault service, starts only the database service, waits with a readiness check,
 * restores into the real PostgreSQL and starts the vault service again, printing each step. The
 * containers are busybox stand-ins (network_mode: none); the database they stand for is the private
 * PostgreSQL on 127.0.0.1 that DB_URL names.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backupDatabase } from '../../src/backup/backup.js'
import { runCli } from '../helpers/cli.js'
import { createDatabase, engineOrNull, postgresOrNull, unavailableReason } from '../helpers/components.js'
import {
  login,
  newKeyHex,
  putSecret,
  readSecret,
  seedProject,
  startVault,
  type Credentials,
} from './backup-fixture.js'

const engine = engineOrNull()
const postgres = postgresOrNull()

describe.skipIf(!engine || !postgres)(
  `vault restore --compose (engine: ${unavailableReason('engine')}, postgres: ${unavailableReason('postgres')})`,
  () => {
    const stack = mkdtempSync(join(tmpdir(), 'vaultrestore'))
    const project = `vaultrestore${Date.now()}`
    const keyHex = newKeyHex()
    let dbUrl: string
    let archive: string
    let credentials: Credentials
    let env: Record<string, string>

    const docker = (...args: string[]) =>
      execFileSync('docker', args, { env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost } })
        .toString('utf8')
        .trim()
    const state = (service: string) => {
      const id = docker(
        'ps',
        '-aq',
        '--filter',
        `label=com.docker.compose.project=${project}`,
        '--filter',
        `label=com.docker.compose.service=${service}`,
      )
      return id ? docker('inspect', '--format', '{{.State.Status}} {{.State.StartedAt}}', id) : 'absent'
    }

    beforeAll(async () => {
      writeFileSync(
        join(stack, 'docker-compose.yml'),
        [
          "version: '2.4'",
          'services:',
          ...['vault', 'db'].flatMap((service) => [
            `  ${service}:`,
            `    image: ${engine!.busyboxImage}`,
            '    command: ["sleep", "3600"]',
            '    network_mode: none',
          ]),
          '',
        ].join('\n'),
      )
      env = {
        DOCKER_HOST: engine!.dockerHost,
        COMPOSE_PROJECT_NAME: project,
        ENCRYPTION_KEY: keyHex,
      }
      dbUrl = await createDatabase(postgres!, 'vault_compose')
      env.DB_URL = dbUrl
      const vault = await startVault(dbUrl, keyHex)
      credentials = await seedProject(vault)
      const { token } = await login(vault.url, credentials)
      await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', 'in-the-backup')
      archive = join(stack, 'vault.jsonl.gz')
      await backupDatabase({ dbUrl, output: archive, encryptionKey: keyHex })
      await putSecret(vault.url, token!, 'dev', 'DB_PASSWORD', 'after-the-backup')
      await vault.close()
      execFileSync('docker-compose', ['up', '-d'], {
        cwd: stack,
        env: { PATH: process.env.PATH!, ...env },
        stdio: 'ignore',
      })
    })

    afterAll(() => {
      try {
        execFileSync('docker-compose', ['down', '-t', '1'], {
          cwd: stack,
          env: { PATH: process.env.PATH!, ...env },
          stdio: 'ignore',
        })
      } finally {
        rmSync(stack, { recursive: true, force: true })
      }
    })

    it('stops nothing when the archive is bad', async () => {
      const before = state('vault')
      expect(before).toMatch(/^running /)
      const bad = join(stack, 'bad.jsonl.gz')
      const bytes = readFileSync(archive)
      writeFileSync(bad, bytes.subarray(0, bytes.length - 20))
      const result = await runCli(['restore', bad, '--compose', '--compose-dir', stack], {
        env,
        timeout: 120_000,
      })
      expect(result.exitCode).toBe(8)
      expect(result.stderr).not.toMatch(/==> stopping the vault/)
      expect(state('vault')).toBe(before)
    })

    it('stops the vault, starts only the database, waits, restores and starts the vault', async () => {
      const result = await runCli(
        ['restore', archive, '--compose', '--compose-dir', stack, '--ready-timeout', '30'],
        {
          env,
          timeout: 240_000,
        },
      )
      expect(result.exitCode, result.stderr).toBe(0)
      const steps = result.stderr
        .split('\n')
        .filter((line) => line.startsWith('==> '))
        .map((line) => line.slice(4))
      const order = [
        /^checking the archive and the key before stopping anything/,
        /^stopping the vault service 'vault' \(docker(-| )compose stop\)/,
        /^starting only the database service 'db'/,
        /^waiting until the database accepts queries \(readiness check\)/,
        /^the database is ready \(after [\d.]+ s\)/,
        /^checking the archive .*\.jsonl\.gz/,
        /^committing/,
        /^starting the vault service 'vault'/,
      ]
      let position = -1
      for (const step of order) {
        const found = steps.findIndex((line, index) => index > position && step.test(line))
        expect(found, `${step} after step ${position} in:\n${steps.join('\n')}`).toBeGreaterThan(position)
        position = found
      }
      expect(state('vault')).toMatch(/^running /)
      expect(state('db')).toMatch(/^running /)

      const vault = await startVault(dbUrl, keyHex)
      try {
        const { token } = await login(vault.url, credentials)
        expect(await readSecret(vault.url, token!, 'dev', 'DB_PASSWORD')).toBe('in-the-backup')
      } finally {
        await vault.close()
      }
    })
  },
)
