/**
 * `vault scan` against a real vault server, a real git repository and the harness's private Docker
 * engine: a value committed and later deleted is found at the commit that added it; a past version's
 * value in a JSON file is found as past; a base64 copy of a value in a file is found as base64; a value
 * passed as a build argument is found in the image's history; a container outside the stack holding a
 * value in its Env and its logs is found, while the stack's own services (meant to hold it) are not.
 * No value, in any encoding, reaches stdout, stderr (DEBUG=*) or a temporary file. --rotate leaves the
 * vault holding new values and the stack's services recreated with them, and lists the commit and the
 * image to clean.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodingsOf } from '../../src/scan/patterns.js'
import Scan from '../../src/commands/scan.js'
import SecretsGet from '../../src/commands/secrets/get.js'
import SecretsSet from '../../src/commands/secrets/set.js'
import { runCli } from '../helpers/cli.js'
import { runCommand } from '../helpers/run-command.js'
import { engineOrNull, unavailableReason } from '../helpers/components.js'
import { createTempHome, type TempHome } from '../helpers/temp-home.js'
import { startVaultServer, type TestVault, deploymentVariables } from '../helpers/vault-server.js'

const engine = engineOrNull()
const canary = (label: string) => `${label}-${randomBytes(12).toString('hex')}`
const image = 'vault-scan-test/leaky:1'

/** The files under `dir` (TMPDIR of the CLI: Node's compile cache only) that hold one of `forms`. */
function filesHolding(dir: string, forms: string[]): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => {
      const bytes = readFileSync(path).toString('latin1')
      return forms.some((form) => bytes.includes(Buffer.from(form).toString('latin1')))
    })
}

describe.skipIf(!engine)(
  `vault scan on real git, files and a real engine (${unavailableReason('engine')})`,
  () => {
    let server: TestVault
    let home: TempHome
    let root: string
    let stack: string
    let repo: string
    let files: string
    let tmp: string
    let env: Record<string, string>
    let addedAt: string
    const values = {
      REPO_TOKEN: canary('git'),
      B64_SECRET: canary('b64'),
      BUILD_TOKEN: canary('build'),
      API_KEY: canary('api-old'),
    }
    const apiKeyNow = canary('api-new')
    const everyForm = () =>
      [...Object.values(values), apiKeyNow].flatMap((value) =>
        encodingsOf(value).map((entry) => entry.text.toString()),
      )

    const docker = (...args: string[]) =>
      execFileSync('docker', args, {
        env: { PATH: process.env.PATH, DOCKER_HOST: engine!.dockerHost, DOCKER_BUILDKIT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
        .toString('utf8')
        .trim()
    const gitIn = (dir: string, ...args: string[]) =>
      execFileSync('git', ['-C', dir, ...args], {
        env: {
          PATH: process.env.PATH,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
          HOME: root,
        },
      })
        .toString('utf8')
        .trim()
    const vault = (args: string[], input?: string) =>
      runCli(args, { env: { ...env, DEBUG: '*', TMPDIR: tmp }, cwd: stack, input, timeout: 180_000 })
    const serviceContainer = (service: string) =>
      docker(
        'ps',
        '-q',
        '--no-trunc',
        '--filter',
        `label=com.docker.compose.service=${service}`,
        '--filter',
        `label=com.docker.compose.project=${projectName()}`,
      )
    const projectName = () =>
      stack
        .split('/')
        .at(-1)!
        .toLowerCase()
        .replace(/[^a-z0-9_-]/g, '')
    const stored = async (name: string) =>
      (await runCommand(SecretsGet, [name, '--env', 'dev'], { env, cwd: stack })).stdout

    beforeAll(async () => {
      server = await startVaultServer({})
      home = createTempHome()
      root = mkdtempSync('/tmp/vaultscan')
      stack = join(root, 'stack')
      repo = join(root, 'repo')
      files = join(root, 'files')
      tmp = join(root, 'tmp')
      for (const dir of [stack, repo, files, tmp]) mkdirSync(dir)
      env = {
        ...home.env,
        DOCKER_HOST: engine!.dockerHost,
        ...deploymentVariables(server),
      }
      for (const [name, value] of Object.entries({ ...values, SHORT_PIN: '1234' }))
        expect(
          (await runCommand(SecretsSet, [name, '--env', 'dev'], { env, cwd: stack, input: value })).exitCode,
        ).toBe(0)
      expect(
        (await runCommand(SecretsSet, ['API_KEY', '--env', 'dev'], { env, cwd: stack, input: apiKeyNow }))
          .exitCode,
      ).toBe(0)

      gitIn(repo, 'init', '-q', '-b', 'main')
      writeFileSync(join(repo, 'README'), 'a project\n')
      gitIn(repo, 'add', 'README')
      gitIn(repo, 'commit', '-qm', 'start')
      writeFileSync(join(repo, '.env'), `# local settings\nREPO_TOKEN=${values.REPO_TOKEN}\n`)
      writeFileSync(join(repo, 'config.json'), JSON.stringify({ api: { key: values.API_KEY } }, null, 2))
      gitIn(repo, 'add', '.env', 'config.json')
      gitIn(repo, 'commit', '-qm', 'settings')
      addedAt = gitIn(repo, 'rev-parse', 'HEAD')
      gitIn(repo, 'rm', '-q', '.env', 'config.json')
      gitIn(repo, 'commit', '-qm', 'oops')

      writeFileSync(
        join(files, 'dump.txt'),
        `line one\nline two\ncredentials: ${Buffer.from(values.B64_SECRET).toString('base64')}\n`,
      )

      const context = join(root, 'context')
      mkdirSync(context)
      writeFileSync(join(context, 'Dockerfile'), `FROM ${engine!.busyboxImage}\nARG BUILD_TOKEN\nRUN true\n`)
      docker(
        'build',
        '-q',
        '--network',
        'none',
        '--build-arg',
        `BUILD_TOKEN=${values.BUILD_TOKEN}`,
        '-t',
        image,
        context,
      )

      writeFileSync(
        join(stack, 'docker-compose.yml'),
        [
          "version: '2.4'",
          'services:',
          '  app:',
          `    image: ${engine!.busyboxImage}`,
          '    network_mode: none',
          `    command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1; done"]`,
          '    environment:',
          '      TOKEN: ${REPO_TOKEN}',
          '      CREDENTIALS: ${B64_SECRET}',
          '      BUILD: ${BUILD_TOKEN}',
          '',
        ].join('\n'),
      )
      const up = await runCli(['run', '--env', 'dev', '--', 'docker-compose', 'up', '-d'], {
        env,
        cwd: stack,
        timeout: 120_000,
      })
      expect(up.exitCode, up.stderr).toBe(0)
      docker(
        'run',
        '-d',
        '--name',
        `stray-${projectName()}`,
        '--network',
        'none',
        '-e',
        `LEAK=${values.REPO_TOKEN}`,
        engine!.busyboxImage,
        'sh',
        '-c',
        'echo "starting with $LEAK"; sleep 600',
      )
    }, 300_000)

    afterAll(async () => {
      if (stack)
        await runCli(['run', '--env', 'dev', '--', 'docker-compose', 'down', '-t', '1'], {
          env,
          cwd: stack,
          timeout: 120_000,
        })
      if (engine && root) {
        try {
          docker('rm', '-f', `stray-${projectName()}`)
          docker('rmi', '-f', image)
        } catch {
          // already gone
        }
      }
      await server?.stop()
      home?.cleanup()
      if (root) rmSync(root, { recursive: true, force: true })
    }, 120_000)

    it('finds each leak, names secret, version, encoding and place, and prints no value anywhere', async () => {
      const result = await vault([
        'scan',
        '--env',
        'dev',
        '--git',
        repo,
        '--path',
        files,
        '--engine',
        engine!.dockerHost,
        '--json',
      ])
      expect(result.exitCode).toBe(10)
      const report = JSON.parse(result.stdout) as {
        findings: Array<Record<string, unknown>>
        skippedShort: number
      }
      expect(report.skippedShort).toBe(1)
      expect(result.stderr).toMatch(/1 value under 8 characters not searched/)
      expect(report.findings).toEqual(
        expect.arrayContaining([
          {
            secret: 'REPO_TOKEN',
            version: 1,
            current: true,
            encoding: 'plain',
            location: { source: 'git', commit: addedAt, path: '.env', line: 2 },
          },
          {
            secret: 'API_KEY',
            version: 1,
            current: false,
            encoding: 'plain',
            location: { source: 'git', commit: addedAt, path: 'config.json', line: 3 },
          },
          {
            secret: 'B64_SECRET',
            version: 1,
            current: true,
            encoding: 'base64',
            location: { source: 'path', path: join(files, 'dump.txt'), line: 3 },
          },
          expect.objectContaining({
            secret: 'BUILD_TOKEN',
            current: true,
            encoding: 'plain',
            location: expect.objectContaining({ source: 'image', tags: [image] }),
          }),
          expect.objectContaining({
            secret: 'REPO_TOKEN',
            location: expect.objectContaining({
              source: 'container',
              name: `stray-${projectName()}`,
              field: 'Env.LEAK',
            }),
          }),
          expect.objectContaining({
            secret: 'REPO_TOKEN',
            location: expect.objectContaining({
              source: 'container',
              name: `stray-${projectName()}`,
              field: 'logs',
              line: 1,
            }),
          }),
        ]),
      )
      const stackFindings = report.findings.filter(
        (finding) => (finding.location as { service?: string }).service === 'app',
      )
      expect(stackFindings).toEqual([])
      for (const form of everyForm()) expect(result.stdout + result.stderr).not.toContain(form)
      expect(filesHolding(tmp, everyForm())).toEqual([])
    })

    it('prints one line per finding without a value, and 0 when nothing is found', async () => {
      const human = await vault(['scan', '--env', 'dev', '--git', repo])
      expect(human.exitCode).toBe(10)
      expect(human.stdout).toContain(`REPO_TOKEN v1 (current): commit ${addedAt.slice(0, 12)} .env:2`)
      expect(human.stdout).toContain(`API_KEY v1 (past): commit ${addedAt.slice(0, 12)} config.json:3`)
      for (const form of everyForm()) expect(human.stdout + human.stderr).not.toContain(form)
      const clean = await vault(['scan', '--env', 'dev', '--path', join(root, 'context')])
      expect(clean.exitCode).toBe(0)
      expect(clean.stdout).toMatch(/^clean: no value found/m)
    })

    it('--stdin finds a URL-encoded value in a log; --staged finds a value about to be committed', async () => {
      const log = `GET /callback?token=${encodeURIComponent(values.B64_SECRET + '/&')} 200\n`
      const piped = await vault(['scan', '--env', 'dev', '--stdin', '--json'], `start\n${log}`)
      expect(piped.exitCode).toBe(10)
      expect(JSON.parse(piped.stdout).findings).toContainEqual({
        secret: 'B64_SECRET',
        version: 1,
        current: true,
        encoding: 'plain',
        location: { source: 'stdin', line: 2 },
      })
      writeFileSync(join(repo, 'settings.yml'), `token: "${values.BUILD_TOKEN}"\n`)
      gitIn(repo, 'add', 'settings.yml')
      const staged = await runCommand(Scan, ['--env', 'dev', '--staged', '--json'], { env, cwd: repo })
      expect(staged.exitCode).toBe(10)
      expect(JSON.parse(staged.stdout).findings).toEqual([
        {
          secret: 'BUILD_TOKEN',
          version: 1,
          current: true,
          encoding: 'plain',
          location: { source: 'staged', path: 'settings.yml', line: 1 },
        },
      ])
      gitIn(repo, 'rm', '-q', '--cached', 'settings.yml')
    })

    it('--rotate: the vault holds new values, the services are recreated with them, the commit and image are left to clean', async () => {
      const before = serviceContainer('app')
      const result = await vault([
        'scan',
        '--env',
        'dev',
        '--git',
        repo,
        '--path',
        files,
        '--engine',
        engine!.dockerHost,
        '--rotate',
        '--stable',
        '1',
        '--json',
      ])
      expect(result.exitCode).toBe(10)
      const report = JSON.parse(result.stdout) as {
        rotated: Array<{
          name: string
          result: { outcome: string; vaultHolds: string; services: Array<{ service: string }> }
        }>
        leftToClean: {
          commits: Array<{ commit: string }>
          images: Array<{ tags: string[] }>
          containers: Array<{ name: string }>
        }
      }
      expect(report.rotated.map((rotation) => rotation.name)).toEqual([
        'B64_SECRET',
        'BUILD_TOKEN',
        'REPO_TOKEN',
      ])
      for (const rotation of report.rotated) {
        expect(rotation.result).toMatchObject({ outcome: 'rotated', vaultHolds: 'new' })
        expect(rotation.result.services.map((service) => service.service)).toEqual(['app'])
      }
      expect(report.leftToClean.commits.map((entry) => entry.commit)).toEqual([addedAt])
      expect(report.leftToClean.images.map((entry) => entry.tags)).toContainEqual([image])
      expect(report.leftToClean.containers.map((entry) => entry.name)).toContain(`stray-${projectName()}`)
      const after = serviceContainer('app')
      expect(after).not.toBe(before)
      for (const [name, variable] of [
        ['REPO_TOKEN', 'TOKEN'],
        ['B64_SECRET', 'CREDENTIALS'],
        ['BUILD_TOKEN', 'BUILD'],
      ] as const) {
        const now = await stored(name)
        expect(now).not.toBe(values[name])
        expect(docker('exec', after, 'sh', '-c', `printf %s "$${variable}"`)).toBe(now)
        expect(result.stdout + result.stderr).not.toContain(now)
      }
      expect(await stored('API_KEY')).toBe(apiKeyNow)
      for (const form of everyForm()) expect(result.stdout + result.stderr).not.toContain(form)
      expect(filesHolding(tmp, everyForm())).toEqual([])
    })
  },
)
