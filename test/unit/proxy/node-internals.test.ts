/**
 * The Node internals and V8 flags the proxy relies on (docs/decisions.md, "Node internals the proxy
 * uses"), checked on the Node that runs the tests: each test fails with a message that names what a
 * Node upgrade took away and what falls back, instead of the proxy silently getting slower or the
 * serving process failing to start.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { proxyNodeFlags } from '../../../src/proxy/launch.js'
import { HTTPParser, parserMethods } from '../../../src/proxy/node-http.js'

const upgrade = `Node ${process.version}`
const see = "See docs/decisions.md, 'Node internals the proxy uses'."

describe('Node internals the proxy uses', () => {
  it("has _http_common's HTTPParser with the callback slots the engine client sets", () => {
    expect(
      HTTPParser,
      `${upgrade} no longer exposes HTTPParser from '_http_common' with numeric kOn* slots: the proxy's ` +
        `engine client (engine-pool.ts) has fallen back to node:http's Agent, 1.7-2.8 x the CPU per request in bench/proxy.ts. ${see}`,
    ).toBeTypeOf('function')
    const slots = HTTPParser as unknown as Record<string, unknown>
    for (const slot of ['kOnExecute', 'kOnHeadersComplete', 'kOnBody', 'kOnMessageComplete', 'RESPONSE'])
      expect(slots[slot], `${upgrade}: HTTPParser.${slot} is not a number. ${see}`).toBeTypeOf('number')
    const parser = new HTTPParser!()
    for (const method of ['initialize', 'execute', 'finish', 'close', 'getCurrentBuffer'])
      expect(
        (parser as unknown as Record<string, unknown>)[method],
        `${upgrade}: the HTTP parser has no ${method}(). ${see}`,
      ).toBeTypeOf('function')
  })

  it("stops after a response's head when kOnHeadersComplete returns 2, and says where the body begins", () => {
    const parser = new HTTPParser!()
    parser.initialize(HTTPParser!.RESPONSE, {}, 1 << 20, HTTPParser!.kLenientNone)
    const seen: string[] = []
    parser[HTTPParser!.kOnHeadersComplete] = () => 2
    parser[HTTPParser!.kOnBody] = (chunk: Buffer) => seen.push(String(chunk))
    const head = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n'
    const result = parser.execute(Buffer.from(`${head}hello`))
    expect(
      { result, seen },
      `${upgrade}: the parser no longer stops after the head (returning the head's length) when its ` +
        `kOnHeadersComplete slot returns 2: engine-pool.ts passes Content-Length bodies on itself and ` +
        `relies on it. ${see}`,
    ).toEqual({ result: head.length, seen: [] })
    parser.close()
  })

  it("parses requests: stops after a request's head when kOnHeadersComplete returns 2, with llhttp's method names", () => {
    const lean = `the lean client path (lean-connection.ts) has fallen back to node:http's server for every request`
    expect(HTTPParser!.REQUEST, `${upgrade}: HTTPParser.REQUEST is not a number; ${lean}. ${see}`).toBeTypeOf(
      'number',
    )
    expect(
      parserMethods,
      `${upgrade}: '_http_common' no longer exports llhttp's methods; ${lean}. ${see}`,
    ).toBeDefined()
    const parser = new HTTPParser!()
    parser.initialize(HTTPParser!.REQUEST, {}, 64 * 1024, HTTPParser!.kLenientNone)
    let seen: unknown[] = []
    parser[HTTPParser!.kOnHeadersComplete] = (...args: unknown[]) => {
      seen = args
      return 2
    }
    const head = 'DELETE /x?y=1 HTTP/1.1\r\nHost: h\r\n\r\n'
    const result = parser.execute(Buffer.from(`${head}GET /next HTTP/1.1\r\n`))
    parser.close()
    expect(
      {
        result,
        method: parserMethods?.[seen[3] as number],
        rest: [seen[0], seen[1], seen[2], seen[4], seen[7], seen[8]],
      },
      `${upgrade}: the request parser no longer reports a head as lean-connection.ts reads it (version, ` +
        `headers, method number, url, upgrade, keep-alive), or no longer stops after it returning its ` +
        `length when kOnHeadersComplete returns 2; ${lean}. ${see}`,
    ).toEqual({ result: head.length, method: 'DELETE', rest: [1, 1, ['Host', 'h'], '/x?y=1', false, true] })
  })

  it('accepts every V8 flag of the serving process', () => {
    const run = spawnSync(
      process.execPath,
      [...proxyNodeFlags, '-e', 'gc({ type: "major", execution: "sync", flavor: "last-resort" })'],
      {
        encoding: 'utf8',
      },
    )
    expect(
      { status: run.status, stderr: run.stderr },
      `${upgrade} refuses the serving process's flags (launch.ts) or gc()'s options (exposed-gc.ts): ` +
        `\`vault proxy serve\` would not start. ${see}`,
    ).toEqual({ status: 0, stderr: '' })
  })

  it('has process.execve, with which `vault proxy serve` becomes the lean serving process', () => {
    expect(
      process.execve,
      `${upgrade} has no process.execve: \`vault proxy serve\` serves in the CLI's process, without the ` +
        `V8 flags of launch.ts (more memory, and no bound on rule patterns from the command line). ${see}`,
    ).toBeTypeOf('function')
  })
})
