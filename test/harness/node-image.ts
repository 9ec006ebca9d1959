/**
 * Builds a Docker image of the lean proxy without a registry: a root filesystem holding the Node
 * binary, the shared libraries `ldd` lists for it, and only the compiled modules `proxy serve` loads
 * (dist/proxy/*.js and dist/errors.js), imported with `docker import`. Needs `make build` first.
 */
import { execFileSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { proxyMallocTunables, proxyNodeFlags } from '../../src/proxy/launch.js'

const repository = fileURLToPath(new URL('../..', import.meta.url))

/** The shared libraries (and the loader) a binary needs, as absolute paths. */
/** The shared libraries `ldd` lists for `binary`. */
export function sharedLibraries(binary: string): string[] {
  const output = execFileSync('ldd', [binary], { encoding: 'utf8' })
  const paths = new Set<string>()
  for (const line of output.split('\n')) {
    const match = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line)
    if (match) paths.add(match[1]!)
  }
  return [...paths]
}

function copyInto(rootfs: string, path: string, source = path): void {
  const target = join(rootfs, path)
  mkdirSync(dirname(target), { recursive: true })
  copyFileSync(realpathSync(source), target)
}

/** A root filesystem holding this Node binary (as /usr/local/bin/node) and the libraries it needs. */
function nodeRootfs(): string {
  const rootfs = mkdtempSync('/tmp/vault-proxy-rootfs-')
  const node = realpathSync(process.execPath)
  copyInto(rootfs, '/usr/local/bin/node', node)
  for (const library of sharedLibraries(node)) copyInto(rootfs, library)
  mkdirSync(join(rootfs, 'tmp'))
  return rootfs
}

/**
 * Builds `tag`, a Node base image without a registry (what `node:24-bookworm-slim` is to a Dockerfile
 * here): the Node binary on PATH and its libraries, no shell.
 */
export function buildNodeBaseImage(dockerHost: string, tag: string): void {
  const rootfs = nodeRootfs()
  try {
    execFileSync(
      'sh',
      [
        '-c',
        'tar -C "$1" -c . | docker -H "$2" import --change "$3" - "$4"',
        'sh',
        rootfs,
        dockerHost,
        'ENV PATH=/usr/local/bin:/usr/bin:/bin',
        tag,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
  } finally {
    rmSync(rootfs, { recursive: true, force: true })
  }
}

/**
 * Builds `tag` on the engine at `dockerHost`: the entrypoint runs dist/proxy/main.js with the proxy's V8
 * flags and malloc tunables (as src/proxy/launch.ts starts it), and a HEALTHCHECK in exec form runs `main.js healthcheck` (the image has no shell).
 */
export function buildProxyImage(dockerHost: string, tag: string): void {
  const distProxy = join(repository, 'dist', 'proxy')
  if (!existsSync(join(distProxy, 'main.js')))
    throw new Error('dist/proxy/main.js is missing: run `make build` first')
  const rootfs = nodeRootfs()
  try {
    for (const file of readdirSync(distProxy).filter((name) => name.endsWith('.js'))) {
      copyInto(rootfs, `/app/dist/proxy/${file}`, join(distProxy, file))
    }
    copyInto(rootfs, '/app/dist/errors.js', join(repository, 'dist', 'errors.js'))
    writeFileSync(join(rootfs, 'app', 'package.json'), '{ "type": "module" }\n')
    const entrypoint = JSON.stringify(['/usr/local/bin/node', ...proxyNodeFlags, '/app/dist/proxy/main.js'])
    const healthcheck = JSON.stringify(['/usr/local/bin/node', '/app/dist/proxy/main.js', 'healthcheck'])
    execFileSync(
      'sh',
      [
        '-c',
        'tar -C "$1" -c . | docker -H "$2" import --change "$3" --change "$4" --change "$5" --change "$6" - "$7"',
        'sh',
        rootfs,
        dockerHost,
        `ENTRYPOINT ${entrypoint}`,
        `ENV GLIBC_TUNABLES=${proxyMallocTunables.join(':')}`,
        'WORKDIR /app',
        `HEALTHCHECK --interval=3s --timeout=3s CMD ${healthcheck}`,
        tag,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
  } finally {
    rmSync(rootfs, { recursive: true, force: true })
  }
}
