/**
 * A human's password against a vault a project directory names (issue 33, item 4): a cloned
 * repository's `.vault/credentials` (or `.env`) sets VAULT_DOMAIN to the attacker's server, and the
 * human runs `vault login --user NAME` there. The PROPERTY checked: the hostile server never receives
 * a request (so never the password, a canary), the refusal is exit 2 before the password is read; a
 * vault the human names (--domain, VAULT_DOMAIN) still gets the sign-in, and the prompt shows it.
 */
import { execa } from 'execa'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runJs } from '../../helpers/cli.js'
import { runCommandLine } from '../../helpers/run-command-line.js'
import { startHostileVault, type HostileVault } from '../../helpers/hostile-vault.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'

const password = 'password-canary-6b1f'
const project = mkdtempSync(join(tmpdir(), 'vault-cloned-'))

let vault: HostileVault
let home: TempHome

beforeAll(async () => {
  vault = await startHostileVault()
  home = createTempHome()
})
afterAll(async () => {
  await vault?.stop()
  home?.cleanup()
  rmSync(project, { recursive: true, force: true })
})
beforeEach(() => {
  vault.requests.length = 0
  vault.bodies.length = 0
  rmSync(join(project, '.vault'), { recursive: true, force: true })
  rmSync(join(project, '.env'), { force: true })
})

/** The cloned project names the hostile vault in `file` (`.vault/credentials` or `.env`). */
function plantDomain(file: '.vault/credentials' | '.env'): void {
  if (file === '.vault/credentials') mkdirSync(join(project, '.vault'), { mode: 0o700 })
  writeFileSync(join(project, file), `VAULT_DOMAIN=${vault.url}\n`, { mode: 0o600 })
}

/** In this process, the password on a piped stdin; the prompt's tests below need a terminal (`script`). */
const login = (env: Record<string, string> = {}, args: string[] = []) =>
  runCommandLine(['login', '--user', 'alice', '--password-stdin', ...args], {
    env: { ...home.env, ...env },
    cwd: project,
    input: password,
  })

describe('vault login --user and a domain from a project file', () => {
  it.each(['.vault/credentials', '.env'] as const)(
    'a domain only %s names gets no request, exit 2',
    async (file) => {
      plantDomain(file)
      const result = await login()
      expect(result.exitCode, result.stderr).toBe(2)
      expect(result.stderr).toMatch(/refusing to send a password to a vault a project file names/)
      expect(result.stderr).toContain(file)
      expect(vault.requests).toEqual([])
      expect(vault.bodies.join('')).not.toContain(password)
      expect(result.stdout + result.stderr).not.toContain(password)
    },
  )

  it('the password is not even read from a terminal: the refusal comes before the prompt', async () => {
    plantDomain('.vault/credentials')
    const shown = await execa(
      'script',
      ['-qec', `${process.execPath} ${runJs} login --user alice`, '/dev/null'],
      {
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...home.env },
        extendEnv: false,
        cwd: project,
        reject: false,
        timeout: 30_000,
        input: `${password}\r`,
      },
    )
    expect(String(shown.stdout)).not.toMatch(/password of alice/)
    expect(String(shown.stdout)).toMatch(/refusing to send a password/)
    expect(vault.requests).toEqual([])
  })

  it.each<[string, Record<string, string>, string[]]>([
    ['--domain names it', {}, ['--domain', '__URL__']],
    ['VAULT_DOMAIN in the environment names it', { VAULT_DOMAIN: '__URL__' }, []],
  ])('the sign-in goes ahead when %s', async (_case, env, args) => {
    plantDomain('.vault/credentials')
    const url = (text: string) => text.replace('__URL__', vault.url)
    const result = await login(
      Object.fromEntries(Object.entries(env).map(([key, value]) => [key, url(value)])),
      args.map(url),
    )
    expect(result.exitCode, result.stderr).toBe(0)
    expect(vault.requests).toContain('POST /api/v1/auth/signin')
  })

  it('the prompt names the vault the password goes to', async () => {
    const shown = await execa(
      'script',
      ['-qec', `${process.execPath} ${runJs} login --user alice --domain ${vault.url}`, '/dev/null'],
      {
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...home.env },
        extendEnv: false,
        cwd: project,
        reject: false,
        timeout: 30_000,
        input: `${password}\r`,
      },
    )
    expect(String(shown.stdout)).toContain(`password of alice at ${vault.url}`)
  })
})
