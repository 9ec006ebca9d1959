/**
 * `vault server --dev --init-project`'s admin password stays off the command line: given the recommended
 * ways (VAULT_ADMIN_PASSWORD, --admin-password-stdin), the canary is absent from the server process's
 * argv (/proc/PID/cmdline) and from its output, and it is the password that signs the admin in. The old
 * --admin-password flag still works and warns as `vault secrets set --value` does.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runJs } from '../helpers/cli.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

interface Started {
  url: string
  pid: number
  output: () => string
  stop: () => Promise<void>
}

/** Starts the built CLI's `server --dev --init-project demo` and waits for its listening line. */
async function startDevServer(extraArgs: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'vault-dev-admin-pw-'))
  dirs.push(dir)
  const args = ['server', '--dev', '--data-dir', join(dir, 'data'), '--port', '0', '--init-project', 'demo']
  const child = spawn(process.execPath, [runJs, ...args, ...extraArgs], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  child.stdin.end(input ?? '')
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${output}`)), 30_000)
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /vault server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)))
  })
  return {
    url,
    pid: child.pid!,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

async function signInStatus(url: string, password: string): Promise<number> {
  const answer = await fetch(`${url}/api/v1/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  })
  return answer.status
}

const warning =
  'Warning: --admin-password puts the secret on the command line, where process listings and shell history show it'

describe('vault server --dev --init-project: the admin password', () => {
  it.each([
    ['VAULT_ADMIN_PASSWORD', { VAULT_ADMIN_PASSWORD: 'CANARY-admin-env-3f9a1c' }, [], undefined],
    ['--admin-password-stdin', {}, ['--admin-password-stdin'], 'CANARY-admin-stdin-8b2e7d\n'],
  ] as const)(
    'from %s: not in the server process argv, not printed, and it signs the admin in',
    async (_, env, args, input) => {
      const canary = 'VAULT_ADMIN_PASSWORD' in env ? env.VAULT_ADMIN_PASSWORD : input!.trim()
      const server = await startDevServer([...args], env, input)
      try {
        const cmdline = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8')
        expect(cmdline).toContain('--init-project')
        expect(cmdline).not.toContain(canary)
        expect(server.output()).not.toContain(canary)
        expect(server.output()).not.toContain('Warning: --admin-password')
        expect(await signInStatus(server.url, `${canary}-wrong`)).toBe(401)
        expect(await signInStatus(server.url, canary)).toBe(200)
      } finally {
        await server.stop()
      }
    },
  )

  it('the old --admin-password flag still works and warns as secrets set --value does', async () => {
    const canary = 'CANARY-admin-argv-5d0c4e'
    const server = await startDevServer(['--admin-password', canary], {})
    try {
      expect(server.output()).toContain(warning)
      expect(server.output()).not.toContain(canary)
      expect(await signInStatus(server.url, canary)).toBe(200)
    } finally {
      await server.stop()
    }
  })
})
