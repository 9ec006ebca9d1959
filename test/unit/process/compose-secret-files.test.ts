import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { NotConfiguredError, UsageError } from '../../../src/errors.js'
import {
  parseComposeV1,
  prepareSecretFiles,
  removeSecretFiles,
} from '../../../src/process/compose-secret-files.js'

describe('parseComposeV1', () => {
  it.each([
    [['up', '-d'], { globals: [], files: [], subcommand: 'up', rest: ['-d'] }],
    [
      ['-f', 'a.yaml', '--file=b.yaml', '-p', 'proj', '--verbose', 'down', '-t', '1'],
      {
        globals: ['-p', 'proj', '--verbose'],
        files: ['a.yaml', 'b.yaml'],
        subcommand: 'down',
        rest: ['-t', '1'],
      },
    ],
    [
      ['--project-directory', '/srv/app', 'config'],
      { globals: [], files: [], projectDirectory: '/srv/app', subcommand: 'config', rest: [] },
    ],
  ])('splits %j', (args, expected) => {
    expect(parseComposeV1('/usr/bin/docker-compose', args)).toEqual(expected)
  })

  it('ignores any other command', () => {
    expect(parseComposeV1('docker', ['compose', 'up'])).toBeUndefined()
  })
})

describe('prepareSecretFiles', () => {
  let stack: string
  let runtime: string
  beforeEach(() => {
    stack = mkdtempSync(join(tmpdir(), 'vault-secret-files-'))
    runtime = mkdtempSync(join(tmpdir(), 'vault-runtime-'))
  })
  afterEach(() => {
    rmSync(stack, { recursive: true, force: true })
    rmSync(runtime, { recursive: true, force: true })
  })
  const compose = (secrets: string) =>
    writeFileSync(
      join(stack, 'compose.yaml'),
      `services:\n  db:\n    image: x\n    secrets: [db_password]\n${secrets}`,
    )

  it('writes the value (mode 444, as compose v2) and a rewritten file with the file: source, project directory kept', async () => {
    compose('secrets:\n  db_password:\n    environment: DB_PASSWORD\n  other:\n    file: ./other.txt\n')
    const invocation = parseComposeV1('docker-compose', ['-p', 'demo', 'up', '-d'])!
    const plan = (await prepareSecretFiles(invocation, stack, {
      DB_PASSWORD: 'pw-1',
      XDG_RUNTIME_DIR: runtime,
    }))!
    expect(plan.directory.startsWith(runtime)).toBe(true)
    expect(statSync(plan.directory).mode & 0o777).toBe(0o700)
    const secretFile = join(plan.directory, 'secret-db_password')
    expect(readFileSync(secretFile, 'utf8')).toBe('pw-1')
    expect(statSync(secretFile).mode & 0o777).toBe(0o444)
    const rewritten = plan.args[1]!
    expect(readFileSync(rewritten, 'utf8')).toContain(`file: ${secretFile}`)
    expect(readFileSync(rewritten, 'utf8')).not.toContain('environment: DB_PASSWORD')
    expect(readFileSync(rewritten, 'utf8')).not.toContain('pw-1')
    expect(plan.args).toEqual(['-f', rewritten, '--project-directory', stack, '-p', 'demo', 'up', '-d'])
    expect(plan.removeAfter).toBe(false)
    const firstInode = statSync(secretFile).ino
    const again = (await prepareSecretFiles(invocation, stack, {
      DB_PASSWORD: 'pw-2',
      XDG_RUNTIME_DIR: runtime,
    }))!
    expect(again.directory).toBe(plan.directory)
    expect(readFileSync(secretFile, 'utf8')).toBe('pw-2')
    // Rewritten whole: a new file took the name, so a reader never saw the old one truncated.
    expect(statSync(secretFile).ino).not.toBe(firstInode)
    expect(statSync(secretFile).mode & 0o777).toBe(0o444)
    expect(readdirSync(plan.directory).filter((name) => name.endsWith('.partial'))).toEqual([])
    await removeSecretFiles(plan.directory)
  })

  it.each([
    [['down'], true],
    [['up'], true],
    [['up', '--detach'], false],
    [['run', '--rm', 'tool', 'true'], false],
    [['ps'], false],
  ])('%j removes the directory afterwards: %s', async (args, removeAfter) => {
    compose('secrets:\n  db_password:\n    environment: DB_PASSWORD\n')
    const plan = await prepareSecretFiles(parseComposeV1('docker-compose', args)!, stack, {
      DB_PASSWORD: 'x-value',
      XDG_RUNTIME_DIR: runtime,
    })
    expect(plan!.removeAfter).toBe(removeAfter)
  })

  it('leaves a stack without environment-sourced secrets alone', async () => {
    compose('secrets:\n  db_password:\n    file: ./pw.txt\n')
    expect(await prepareSecretFiles(parseComposeV1('docker-compose', ['up'])!, stack, {})).toBeUndefined()
  })

  it.each([
    ['nested 300 deep', `x-deep: ${'['.repeat(300)}${']'.repeat(300)}\n`, /exceeded max depth/],
    ['a megabyte of [', `x-deep: ${'['.repeat(1 << 20)}\n`, /exceeded max depth/],
    ['an alias bomb', aliasBomb(), /excessive aliasing/],
    ['not UTF-8', 'x-bad: "\xff"\n', /invalid leading UTF-8 octet/],
  ])(
    'refuses a hostile compose file as the loader does (%s), before writing anything',
    async (_case, extra, message) => {
      const started = Date.now()
      writeFileSync(
        join(stack, 'compose.yaml'),
        Buffer.concat([
          Buffer.from(
            'services:\n  db:\n    image: x\n    secrets: [db_password]\nsecrets:\n  db_password:\n    environment: DB_PASSWORD\n',
          ),
          Buffer.from(extra, 'latin1'),
        ]),
      )
      await expect(
        prepareSecretFiles(parseComposeV1('docker-compose', ['up', '-d'])!, stack, {
          DB_PASSWORD: 'x-value',
          XDG_RUNTIME_DIR: runtime,
        }),
      ).rejects.toThrow(message)
      expect(Date.now() - started).toBeLessThan(3000)
      expect(readdirSync(runtime)).toEqual([])
    },
  )

  it.each([
    ['climbs out of the private directory', (victim: string) => `x/../../../../..${victim}`],
    ['is a path of its own', (victim: string) => victim],
    ['holds a slash', () => 'a/b'],
  ])('refuses a secret name that %s, writing no file anywhere', async (_case, nameFor) => {
    const victim = join(stack, 'victim.txt')
    writeFileSync(victim, 'precious')
    compose(`secrets:\n  ${JSON.stringify(nameFor(victim))}:\n    environment: DB_PASSWORD\n`)
    await expect(
      prepareSecretFiles(parseComposeV1('docker-compose', ['up', '-d'])!, stack, {
        DB_PASSWORD: 'pw-stolen',
        XDG_RUNTIME_DIR: runtime,
      }),
    ).rejects.toThrow(/secret name .* is not valid/)
    // The secret's value was never renamed over the file the name pointed at.
    expect(readFileSync(victim, 'utf8')).toBe('precious')
    expect(readdirSync(stack).sort()).toEqual(['compose.yaml', 'victim.txt'])
    expect(readdirSync(runtime)).toEqual([])
  })

  it('honours the long syntax: a file per uid, gid and mode, mounted at the original target', async () => {
    writeFileSync(
      join(stack, 'compose.yaml'),
      [
        'services:',
        '  db:',
        '    image: x',
        '    secrets:',
        '      - source: db_password',
        '        uid: "999"',
        '        gid: 998',
        '        mode: 0440',
        '  app:',
        '    image: x',
        '    secrets: [db_password, {source: db_password, target: /etc/app/pw, mode: 0o400}]',
        '  web:',
        '    image: x',
        '    secrets: [{source: db_password, mode: 0444}]',
        'secrets:',
        '  db_password:',
        '    environment: DB_PASSWORD',
        '',
      ].join('\n'),
    )
    const plan = (await prepareSecretFiles(parseComposeV1('docker-compose', ['up', '-d'])!, stack, {
      DB_PASSWORD: 'pw-1',
      XDG_RUNTIME_DIR: runtime,
    }))!
    const file = (name: string) => join(plan.directory, `secret-${name}`)
    const modes = Object.fromEntries(
      readdirSync(plan.directory)
        .filter((name) => name.startsWith('secret-'))
        .map((name) => [name, statSync(join(plan.directory, name)).mode & 0o777]),
    )
    expect(modes).toEqual({
      'secret-db_password': 0o444,
      'secret-db_password.vault-u999-g998-m0440': 0o440,
      'secret-db_password.vault-ux-gx-m0400': 0o400,
    })
    const owner = statSync(file('db_password.vault-u999-g998-m0440'))
    if (process.getuid?.() === 0) expect([owner.uid, owner.gid]).toEqual([999, 998])
    for (const name of Object.keys(modes))
      expect(readFileSync(join(plan.directory, name), 'utf8')).toBe('pw-1')
    const model = parse(readFileSync(plan.args[1]!, 'utf8')) as {
      services: Record<string, { secrets: unknown[] }>
      secrets: Record<string, unknown>
    }
    expect(model.services.db!.secrets).toEqual([
      { source: 'db_password.vault-u999-g998-m0440', target: 'db_password' },
    ])
    expect(model.services.app!.secrets).toEqual([
      'db_password',
      { source: 'db_password.vault-ux-gx-m0400', target: '/etc/app/pw' },
    ])
    expect(model.services.web!.secrets).toEqual([{ source: 'db_password' }])
    expect(model.secrets).toEqual({
      db_password: { file: file('db_password') },
      'db_password.vault-u999-g998-m0440': { file: file('db_password.vault-u999-g998-m0440') },
      'db_password.vault-ux-gx-m0400': { file: file('db_password.vault-ux-gx-m0400') },
    })
  })

  it.each([
    ['a setuid mode', 'mode: 04755'],
    ['a mode beyond 0777', 'mode: 1000'],
    ['a symbolic mode', 'mode: u+r'],
    ['a user name', 'uid: postgres'],
    ['a negative gid', 'gid: -1'],
    ['a huge uid', 'uid: 99999999999'],
    ['a mode that is a map', 'mode: {__proto__: 1}'],
  ])('refuses %s (exit 2) and writes no secret file', async (_what, field) => {
    writeFileSync(
      join(stack, 'compose.yaml'),
      `services:\n  db:\n    image: x\n    secrets:\n      - source: db_password\n        ${field}\nsecrets:\n  db_password:\n    environment: DB_PASSWORD\n`,
    )
    await expect(
      prepareSecretFiles(parseComposeV1('docker-compose', ['up'])!, stack, {
        DB_PASSWORD: 'pw-CANARY',
        XDG_RUNTIME_DIR: runtime,
      }),
    ).rejects.toThrow(UsageError)
    const written = readdirSync(runtime).flatMap((directory) => readdirSync(join(runtime, directory)))
    expect(written).toEqual([])
  })

  it('refuses a secret whose variable is not set, naming it', async () => {
    compose('secrets:\n  db_password:\n    environment: DB_PASSWORD\n')
    await expect(
      prepareSecretFiles(parseComposeV1('docker-compose', ['up'])!, stack, { XDG_RUNTIME_DIR: runtime }),
    ).rejects.toThrow(NotConfiguredError)
  })
})

/** Nine levels of nine aliases each (9^9 expansions), as in the loader's alias-bomb corpus. */
function aliasBomb(): string {
  const lines = ['x-a0: &a0 [lol]']
  for (let level = 1; level <= 9; level++)
    lines.push(`x-a${level}: &a${level} [${Array.from({ length: 9 }, () => `*a${level - 1}`).join(', ')}]`)
  return lines.join('\n') + '\n'
}
