/**
 * A real vault server for tests, on 127.0.0.1:0 over HTTP: SQLite in a temporary directory by default,
 * or any DB_URL (e.g. `createDatabase(postgresOrNull())`). It is initialised with a project `demo`
 * (dev, staging, prod), its `demo-deployment` identity (read+write everywhere) and a `demo-admin`
 * identity (admin everywhere, with `adminToken`). `spawnVaultProcess` runs the server as a separate
 * real process on the same database (revocation across replicas, SIGKILL durability).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createSession } from '../../src/client/session.js'
import { VaultApi } from '../../src/client/vault-api.js'
import { initialiseVault } from '../../src/server/bootstrap.js'
import type { VaultLimits } from '../../src/server/context.js'
import { createIdentity, parsePermissions, type PermissionMap } from '../../src/server/identities.js'
import { defaultConnectionLimits } from '../../src/server/http/connection-limits.js'
import { startVault, type RunningVault } from '../../src/server/server.js'
import type { TimingOverrides } from '../../src/server/timings.js'

export interface ClientCredentials {
  clientId: string
  clientSecret: string
}

export interface TestVault {
  url: string
  dbUrl: string
  /** Hex keys of this vault (for spawning more processes on the same database). */
  encryptionKey: string
  jwtSecret: string
  projectId: string
  environments: string[]
  deploymentCredentials: ClientCredentials
  adminCredentials: ClientCredentials
  adminToken: string
  /** Exchanges credentials for an access token at this vault, or at `url` (throws on a non-200). */
  token(credentials: ClientCredentials, url?: string): Promise<string>
  /** Creates another identity in the project, e.g. `{ dev: ['read'] }` or `'*=read'`. */
  createIdentity(name: string, permissions: PermissionMap | string): Promise<ClientCredentials>
  /** Creates a second project with its own deployment identity. */
  createProject(name: string): Promise<{ projectId: string; credentials: ClientCredentials }>
  running: RunningVault
  stop(): Promise<void>
}

export interface StartVaultServerOptions {
  dbUrl?: string
  encryptionKey?: string
  jwtSecret?: string
  limits?: Partial<VaultLimits>
  project?: string
  /** Let the webhook worker deliver to loopback receivers (the server's --allow-private-webhooks). */
  allowPrivateWebhooks?: boolean
  /** The server's --trusted-proxies. */
  trustedProxies?: string[]
  /** Listen address (default 127.0.0.1). */
  host?: string
  /** The server's --behind-proxy (a TLS-terminating gateway in front). */
  behindProxy?: boolean
  /** Shorter session lifetimes, feed or webhook intervals (src/server/timings.ts). */
  timings?: TimingOverrides
}

/**
 * The per-source connection cap of test servers: every test client comes from 127.0.0.1, as their
 * raised request limits already assume; test/integration/server-connections.test.ts sets its own.
 */
const testConnectionsPerSource = 4096

/** Starts an initialised vault server in this process. */
export async function startVaultServer(options: StartVaultServerOptions = {}): Promise<TestVault> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-test-'))
  const dbUrl = options.dbUrl ?? `sqlite://${join(dataDir, 'vault.db')}`
  const encryptionKey = options.encryptionKey ?? randomBytes(32).toString('hex')
  const jwtSecret = options.jwtSecret ?? randomBytes(32).toString('hex')
  const running = await startVault(
    {
      encryptionKey: Buffer.from(encryptionKey, 'hex'),
      jwtSecret: Buffer.from(jwtSecret, 'hex'),
      dbUrl,
      host: options.host ?? '127.0.0.1',
      port: 0,
      dev: true,
      behindProxy: Boolean(options.behindProxy),
      allowPrivateWebhooks: options.allowPrivateWebhooks,
      trustedProxies: options.trustedProxies,
      connections: { ...defaultConnectionLimits, connectionsPerSource: testConnectionsPerSource },
      timings: options.timings,
    },
    { tokenRequestsPerMinute: 100_000, requestsPerMinute: 1_000_000, ...options.limits },
  )
  const { driver, keyring } = running.context
  const environments = ['dev', 'staging', 'prod']
  const init = await initialiseVault(driver, keyring, {
    adminUser: 'admin',
    adminPassword: 'correct horse battery staple',
    project: options.project ?? 'demo',
    environments,
  })
  const makeIdentity = async (projectId: string, name: string, permissions: PermissionMap | string) => {
    const map = typeof permissions === 'string' ? parsePermissions(permissions, environments) : permissions
    const made = await driver.transaction((tx) =>
      createIdentity(tx, keyring, { projectId, name, permissions: map }),
    )
    return { clientId: made.identity.clientId, clientSecret: made.clientSecret }
  }
  const token = async (credentials: ClientCredentials, url = running.url) => {
    const response = await fetch(`${url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
      }),
    })
    if (response.status !== 200) throw new Error(`token request failed with HTTP ${response.status}`)
    return ((await response.json()) as { access_token: string }).access_token
  }
  const adminCredentials = await makeIdentity(
    init.projectId,
    `${init.projectName}-admin`,
    '*=read,write,admin',
  )
  return {
    url: running.url,
    dbUrl,
    encryptionKey,
    jwtSecret,
    projectId: init.projectId,
    environments,
    deploymentCredentials: { clientId: init.clientId, clientSecret: init.clientSecret },
    adminCredentials,
    adminToken: await token(adminCredentials),
    token,
    createIdentity: (name, permissions) => makeIdentity(init.projectId, name, permissions),
    async createProject(name) {
      const other = await initialiseVault(driver, keyring, {
        adminUser: 'admin',
        adminPassword: 'correct horse battery staple',
        project: name,
        environments,
      })
      return {
        projectId: other.projectId,
        credentials: { clientId: other.clientId, clientSecret: other.clientSecret },
      }
    },
    running,
    async stop() {
      await running.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface VaultProcess {
  url: string
  child: ChildProcess
  /** Everything the process wrote to stderr so far. */
  log(): string
  stop(signal?: NodeJS.Signals): Promise<void>
}

const repoRoot = resolve(import.meta.dirname, '..', '..')

/**
 * The server's entry in `root`: the compiled dist/server/main.js when it is newer than every file under
 * src/ (as `make build` leaves it; it starts in half the time), else src/server/main.ts through tsx.
 */
function serverEntry(root: string): string[] {
  const compiled = join(root, 'dist/server/main.js')
  if (!existsSync(compiled)) return ['--import', 'tsx', join(root, 'src/server/main.ts')]
  const builtAt = statSync(compiled).mtimeMs
  const stale = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true }).some(
    (entry) => entry.isFile() && statSync(join(entry.parentPath, entry.name)).mtimeMs > builtAt,
  )
  return stale ? ['--import', 'tsx', join(root, 'src/server/main.ts')] : [compiled]
}

/**
 * Spawns the server (serverEntry) as a real process on `dbUrl` and waits for its listening line.
 * VAULT_SERVER_NODE_OPTIONS adds node flags to the child (e.g. `--cpu-prof` when profiling a benchmark).
 */
export async function spawnVaultProcess(env: {
  dbUrl: string
  encryptionKey: string
  jwtSecret: string
  /** Another checkout to run the server of (a benchmark's baseline build); default this one. */
  root?: string
  /** More server settings (VAULT_* variables), e.g. small connection limits. */
  settings?: Record<string, string>
  /** The process's limit of open files (prlimit), to show what exhausting it does. */
  fileLimit?: number
}): Promise<VaultProcess> {
  const root = env.root ?? repoRoot
  const node = [
    process.execPath,
    ...(process.env.VAULT_SERVER_NODE_OPTIONS?.split(' ').filter(Boolean) ?? []),
    ...serverEntry(root),
  ]
  const argv = env.fileLimit ? ['prlimit', `--nofile=${env.fileLimit}:${env.fileLimit}`, '--', ...node] : node
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      VAULT_DB_URL: env.dbUrl,
      VAULT_ENCRYPTION_KEY: env.encryptionKey,
      VAULT_JWT_SECRET: env.jwtSecret,
      VAULT_HOST: '127.0.0.1',
      VAULT_PORT: '0',
      VAULT_REQUESTS_PER_MINUTE: '1000000',
      // every test client comes from 127.0.0.1: the per-source cap (64 by default) is a test's to set
      VAULT_CONNECTIONS_PER_SOURCE: String(testConnectionsPerSource),
      ...env.settings,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`vault process did not start:\n${stderr}`)), 60_000)
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
      const match = /vault server listening on (\S+)/.exec(stderr)
      if (match) {
        clearTimeout(timer)
        done(match[1]!)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      fail(new Error(`vault process exited with ${code}:\n${stderr}`))
    })
  })
  return {
    url,
    child,
    log: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
  }
}

/** The four VAULT_ variables that let the CLI reach `vault` as its deployment identity. */
export function deploymentVariables(vault: TestVault): Record<string, string> {
  return {
    VAULT_DOMAIN: vault.url,
    VAULT_PROJECT_ID: vault.projectId,
    VAULT_CLIENT_ID: vault.deploymentCredentials.clientId,
    VAULT_CLIENT_SECRET: vault.deploymentCredentials.clientSecret,
  }
}

/**
 * A vault API client acting as `vault`'s deployment identity (to seed secrets over HTTP), with no keychain
 * and its token cache under `stateDir`. `url` defaults to the in-process server's.
 */
export function deploymentApi(vault: TestVault, stateDir: string, url = vault.url): VaultApi {
  const settings = {
    domain: url,
    projectId: vault.projectId,
    clientId: vault.deploymentCredentials.clientId,
    clientSecret: vault.deploymentCredentials.clientSecret,
    insecure: false,
  }
  return new VaultApi(createSession(settings, { VAULT_KEYCHAIN: 'off', XDG_STATE_HOME: stateDir }))
}
