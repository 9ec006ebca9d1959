/**
 * A database-client image without a registry: busybox plus the host's own `psql` (PostgreSQL 15) and
 * `mariadb` client binaries with the shared libraries `ldd` lists, imported with `docker import`. A
 * container of it on the host network plays the database service a rotator reaches with
 * `--rotator-service` (its client then connects to the private servers on 127.0.0.1).
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { sharedLibraries } from './node-image.js'

const clients = {
  '/usr/local/bin/psql': '/usr/lib/postgresql/15/bin/psql',
  '/usr/local/bin/mariadb': '/usr/bin/mariadb',
}

function copyInto(rootfs: string, path: string, source = path): void {
  const target = join(rootfs, path)
  mkdirSync(dirname(target), { recursive: true })
  if (!existsSync(target)) copyFileSync(realpathSync(source), target)
}

/** Builds `tag` on the engine at `dockerHost` (busybox, psql, mariadb). */
export function buildClientImage(dockerHost: string, tag: string): void {
  const rootfs = mkdtempSync('/tmp/vault-client-rootfs-')
  try {
    copyInto(rootfs, '/bin/busybox')
    const applets = execFileSync('/bin/busybox', ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean)
    for (const applet of applets)
      if (applet !== 'busybox') symlinkSync('busybox', join(rootfs, 'bin', applet))
    for (const [path, source] of Object.entries(clients)) {
      copyInto(rootfs, path, source)
      for (const library of sharedLibraries(source)) copyInto(rootfs, library)
    }
    mkdirSync(join(rootfs, 'tmp'), { recursive: true })
    execFileSync(
      'sh',
      [
        '-c',
        `tar -C "$1" -c . | docker -H "$2" import --change 'ENV PATH=/usr/local/bin:/bin' - "$3"`,
        'sh',
        rootfs,
        dockerHost,
        tag,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
  } finally {
    rmSync(rootfs, { recursive: true, force: true })
  }
}
