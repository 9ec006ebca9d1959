/**
 * A private Docker engine for the test suite: Debian's dockerd on a socket in a temporary directory,
 * vfs storage, no iptables and no default bridge, with a busybox image imported from busybox-static.
 * Started by the harness, stopped by its own pid; a daemon we did not start is never touched.
 */
import { spawn, execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  copyFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface EngineInfo {
  /** Path of the engine's unix socket. */
  socket: string
  /** `unix://<socket>`, for DOCKER_HOST. */
  dockerHost: string
  /** A tag of an image holding busybox (sh, sleep, cat, ...). */
  busyboxImage: string
  dir: string
  pid: number
}

export const busyboxImage = 'vault-test/busybox:latest'

/** Why the engine cannot start here, or undefined when the binaries are present. */
export function engineUnavailableReason(): string | undefined {
  for (const binary of ['/usr/sbin/dockerd', '/usr/bin/docker', '/bin/busybox']) {
    if (!existsSync(binary)) return `${binary} is missing (apt-get install docker.io busybox-static)`
  }
  if (process.getuid?.() !== 0) return 'dockerd needs root'
  return undefined
}

/** Starts a private dockerd and imports the busybox image. */
export async function startEngine(): Promise<EngineInfo> {
  const dir = mkdtempSync('/tmp/vault-engine-')
  const socket = join(dir, 'docker.sock')
  const log = openSync(join(dir, 'dockerd.log'), 'a')
  const daemon = spawn(
    '/usr/sbin/dockerd',
    [
      '--iptables=false',
      '--ip6tables=false',
      '--bridge=none',
      '--storage-driver=vfs',
      `--data-root=${join(dir, 'data')}`,
      `--exec-root=${join(dir, 'exec')}`,
      `--pidfile=${join(dir, 'docker.pid')}`,
      '-H',
      `unix://${socket}`,
    ],
    { detached: true, stdio: ['ignore', log, log] },
  )
  daemon.unref()
  const info: EngineInfo = {
    socket,
    dockerHost: `unix://${socket}`,
    busyboxImage,
    dir,
    pid: daemon.pid ?? -1,
  }
  try {
    await waitUntilReady(info, daemon)
    importBusybox(info)
    return info
  } catch (error) {
    const tail = readFileSync(join(dir, 'dockerd.log'), 'utf8').slice(-1500)
    await stopEngine(info)
    throw new Error(`private dockerd failed: ${(error as Error).message}\n${tail}`, { cause: error })
  }
}

async function waitUntilReady(info: EngineInfo, daemon: ReturnType<typeof spawn>): Promise<void> {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (daemon.exitCode !== null) throw new Error(`dockerd exited with ${daemon.exitCode}`)
    try {
      execFileSync('docker', ['-H', info.dockerHost, 'version', '--format', '{{.Server.Version}}'], {
        stdio: 'pipe',
      })
      return
    } catch {
      await sleep(250)
    }
  }
  throw new Error('dockerd did not answer within 60 s')
}

function importBusybox(info: EngineInfo): void {
  const rootfs = join(info.dir, 'busybox-rootfs')
  mkdirSync(join(rootfs, 'bin'), { recursive: true })
  mkdirSync(join(rootfs, 'tmp'), { recursive: true })
  copyFileSync('/bin/busybox', join(rootfs, 'bin', 'busybox'))
  const applets = execFileSync('/bin/busybox', ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean)
  for (const applet of applets) if (applet !== 'busybox') symlinkSync('busybox', join(rootfs, 'bin', applet))
  execFileSync(
    'sh',
    [
      '-c',
      `tar -C "$1" -c . | docker -H "$2" import --change 'CMD ["sh"]' --change 'ENV PATH=/bin' - "$3"`,
      'sh',
      rootfs,
      info.dockerHost,
      busyboxImage,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
}

/** Whether the engine can start a --privileged container (a sandbox may lack a capability for it). */
export function engineGrantsPrivileged(info: EngineInfo): boolean {
  try {
    execFileSync(
      'docker',
      ['-H', info.dockerHost, 'run', '--rm', '--privileged', '--network', 'none', info.busyboxImage, 'true'],
      {
        stdio: 'ignore',
      },
    )
    return true
  } catch {
    return false
  }
}

/** Stops the daemon by its pid (TERM, then KILL after 20 s) and removes its directory. */
export async function stopEngine(info: EngineInfo): Promise<void> {
  const pid = info.pid
  if (pid > 0 && isAlive(pid)) {
    process.kill(pid, 'SIGTERM')
    const deadline = Date.now() + 20_000
    while (isAlive(pid) && Date.now() < deadline) await sleep(100)
    if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  }
  try {
    execFileSync(
      'sh',
      ['-c', `grep -o " ${info.dir}[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l`],
      { stdio: 'ignore' },
    )
  } catch {
    /* nothing mounted */
  }
  rmSync(info.dir, { recursive: true, force: true, maxRetries: 3 })
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
