/**
 * A fake engine for the proxy benchmark, run as its own process: `node bench/lib/fake-engine.ts SOCKET`.
 * Answers GET /_ping with `OK` and GET /containers/json with a fixed 64 KB list (Docker's shape), on a
 * unix socket, keep-alive, so the proxies' own cost is what the benchmark sees. fake-engine.go gives the
 * same answers at a fraction of the CPU (bench/proxy.ts uses it when Go is installed).
 */
import { createServer } from 'node:http'
import { rmSync } from 'node:fs'
import { containerList } from './container-list.js'

const socket = process.argv[2]
if (!socket) throw new Error('usage: fake-engine.ts SOCKET')

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
