/**
 * `vault proxy serve` (the built CLI, one lean process) under abuse: 1,000 connections held open at
 * once (50% idle, 45% stalled in their head, 5% stalled in an upgrade body) while an ordinary client
 * keeps asking. The ordinary client is always answered, the serving process's resident memory (sampled
 * from /proc throughout) stays under 64 MB, and it falls back once the connections are gone.
 */
import { spawn } from 'node:child_process'
import http from 'node:http'
import net from 'node:net'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../harness/ports.js'
import { runJs } from '../helpers/cli.js'
import { corpusRules } from '../adversarial/proxy/corpus.js'

const engineSocket = join(mkdtempSync(join(tmpdir(), 'proxy-abuse-')), 'engine.sock')
let engine: http.Server

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024
}

beforeAll(async () => {
  engine = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => res.end('[]'))
  })
  engine.on('upgrade', (_req: http.IncomingMessage, socket: net.Socket) => {
    socket.on('error', () => socket.destroy())
    socket.resume()
  })
  await new Promise<void>((resolve) => engine.listen(engineSocket, resolve))
})

afterAll(() => {
  engine.closeAllConnections()
  engine.close()
})

/**
 * Opens a connection from `from` and writes `text` (nothing for an idle one); resolves once connected.
 * The abusers come from ten addresses: each source may hold an eighth of the connection cap.
 */
function hold(port: number, text: string, from: string): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from }, () => {
      if (text) socket.write(text)
      resolve(socket)
    })
    socket.on('error', () => socket.destroy())
  })
}

function list(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: '/v1.41/containers/json', localAddress: '127.0.0.2', agent: false },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode!))
      },
    )
    req.on('error', () => resolve(0))
  })
}

describe('vault proxy serve under abuse', () => {
  it('holds 1,000 slow or idle connections under 64 MB while an ordinary client is served', async () => {
    const port = await freePort()
    const serve = spawn(process.execPath, [runJs, 'proxy', 'serve'], {
      env: {
        PATH: process.env.PATH,
        PROXY_BACKEND_ADDR: `unix://${engineSocket}`,
        PROXY_FRONTEND_ADDR: `tcp://127.0.0.1:${port}`,
        PROXY_RULES: corpusRules,
        PROXY_LOG_LEVEL: '3',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let log = ''
    serve.stderr!.on('data', (chunk) => (log += chunk))
    const exited = new Promise((resolve) => serve.on('exit', resolve))
    try {
      for (let i = 0; i < 100 && (await list(port)) !== 200; i++) await new Promise((r) => setTimeout(r, 50))
      const pid = serve.pid!
      const samples: number[] = [rssMb(pid)]
      const sampler = setInterval(() => samples.push(rssMb(pid)), 50)
      const upgrade =
        'POST /v1.41/exec/x/start HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 1000000\r\n\r\n'
      /** 50% idle, 45% stalled in their head, 5% stalled in an upgrade body. */
      const shape = (i: number) =>
        i % 20 < 10
          ? ''
          : i % 20 < 19
            ? 'GET /v1.41/containers/json HTTP/1.1\r\nHost: x\r\nX-Slow: '
            : upgrade + 'y'.repeat(1024)
      const answers: number[] = []
      const wave = async () => {
        const held: net.Socket[] = []
        for (let i = 0; i < 1000; i++) {
          held.push(await hold(port, shape(i), `127.0.3.${1 + (i % 10)}`))
          if (i % 100 === 99) answers.push(await list(port))
        }
        for (let i = 0; i < 10; i++) {
          answers.push(await list(port))
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        for (const socket of held) socket.destroy()
        // real time on purpose: the proxy process's RSS is sampled every 50 ms while it handles the closes
        await new Promise((resolve) => setTimeout(resolve, 1000))
        return Math.max(...samples)
      }
      const peak = await wave()
      let after = rssMb(pid)
      for (let i = 0; i < 40 && after > peak - 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500))
        after = rssMb(pid)
      }
      clearInterval(sampler)
      console.log(
        `proxy RSS: start ${samples[0]!.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, after ${after.toFixed(1)} MB`,
      )
      expect(answers.length).toBe(20)
      expect(
        answers.every((status) => status === 200),
        JSON.stringify(answers),
      ).toBe(true)
      expect(peak).toBeLessThan(64)
      expect(after).toBeLessThan(peak - 1)
    } finally {
      serve.kill('SIGTERM')
      await exited
    }
    expect(log).not.toContain('unexpected error')
  })
})
