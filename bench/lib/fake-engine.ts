/**
 * A fake engine for the proxy benchmark, run as its own process: `node bench/lib/fake-engine.ts SOCKET`.
 * Answers GET /_ping with `OK` and GET /containers/json with a fixed 64 KB list (Docker's shape), on a
 * unix socket, keep-alive, so the proxies' own cost is what the benchmark sees.
 */
import { createServer } from 'node:http'
import { rmSync } from 'node:fs'

const socket = process.argv[2]
if (!socket) throw new Error('usage: fake-engine.ts SOCKET')

/** A list of containers in Docker's shape, just over `bytes` long. */
function containerList(bytes: number): Buffer {
  const containers: unknown[] = []
  for (let i = 0; JSON.stringify(containers).length < bytes; i++) {
    containers.push({
      Id: i.toString(16).padStart(64, '0'),
      Names: [`/bench-${i}`],
      Image: 'busybox:latest',
      ImageID: `sha256:${'ab'.repeat(32)}`,
      Command: 'sleep infinity',
      Created: 1_700_000_000 + i,
      Ports: [],
      Labels: { 'com.docker.compose.project': 'bench', 'com.docker.compose.service': `svc-${i}` },
      State: 'running',
      Status: 'Up 2 hours',
      HostConfig: { NetworkMode: 'bridge' },
      NetworkSettings: { Networks: { bridge: { IPAddress: `172.17.${i >> 8}.${i & 255}` } } },
      Mounts: [],
    })
  }
  return Buffer.from(JSON.stringify(containers))
}

const list = containerList(64 * 1024)
const ok = Buffer.from('OK')

rmSync(socket, { force: true })
createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const path = (req.url ?? '/').replace(/^\/v[0-9.]+/, '').replace(/\?.*$/, '')
  const body = path === '/_ping' ? ok : path === '/containers/json' ? list : undefined
  if (!body) {
    res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"message":"not in the fake engine"}')
    return
  }
  res.writeHead(200, {
    'Content-Type': path === '/_ping' ? 'text/plain; charset=utf-8' : 'application/json',
    'Content-Length': body.length,
    'Api-Version': '1.47',
  })
  res.end(body)
}).listen(socket, () => console.log(`fake engine on ${socket}: list ${list.length} bytes`))
