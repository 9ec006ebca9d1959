/**
 * The floor of any proxy written in Node, for bench/proxy.ts: `node bench/lib/byte-relay.ts PORT SOCKET`
 * listens on 127.0.0.1:PORT and pipes each connection, byte for byte, to a new connection to the unix
 * SOCKET and back. It parses nothing and checks nothing, so no Node proxy that reads the requests can
 * spend less CPU per request than this does. Not a proxy to use: it is a measuring stick.
 */
import { createConnection, createServer } from 'node:net'

const [port, socket] = process.argv.slice(2)
if (!port || !socket) throw new Error('usage: byte-relay.ts PORT SOCKET')

createServer({ noDelay: true }, (client) => {
  const engine = createConnection({ path: socket, noDelay: true })
  client.pipe(engine).pipe(client)
  const close = () => {
    client.destroy()
    engine.destroy()
  }
  client.on('error', close).on('close', close)
  engine.on('error', close).on('close', close)
}).listen(Number(port), '127.0.0.1')
