/**
 * Hostile inputs of `vault scan`, one row per attack with the property it checks. Who controls them:
 * the files under --path (anyone who could write there), a repository's history and path names (its
 * committers), the engine's answers (the engine, or whatever sits at --engine), secret names (vault
 * writers), standard input (whatever is piped in).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demultiplex, parseEngineAddress } from '../../../src/scan/engine-client.js'
import { formatScanReport } from '../../../src/scan/report.js'
import { scanForSecrets, type ScanResult } from '../../../src/scan/scan.js'
import type { SecretValue } from '../../../src/scan/patterns.js'

const secret: SecretValue = { name: 'API_TOKEN', version: 3, current: true, value: 'canary-4f1d9a0b7c' }
const scan = (sources: Parameters<typeof scanForSecrets>[1]['sources'], values = [secret]) => {
  const notes: string[] = []
  return scanForSecrets(values, {
    secrets: 1,
    sources,
    expectedEnv: () => false,
    note: (line) => notes.push(line),
  }).then((result) => ({ result, notes }))
}
const paths = (result: ScanResult) =>
  result.findings.map((finding) => (finding.location as { path?: string }).path)

describe('vault scan against hostile inputs', () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'vault-scan-adv-'))
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('a FIFO under --path is not opened: the scan does not block on it', async () => {
    const dir = join(root, 'fifo')
    mkdirSync(dir)
    execFileSync('mkfifo', [join(dir, 'pipe')])
    writeFileSync(join(dir, 'leak.txt'), `x ${secret.value}\n`)
    const { result } = await scan({ paths: [dir] })
    expect(paths(result)).toEqual([join(dir, 'leak.txt')])
  })

  it('a symbolic link under --path is not followed (a link to / or a loop cannot lead the scan elsewhere)', async () => {
    const dir = join(root, 'links')
    const outside = join(root, 'outside')
    mkdirSync(dir)
    mkdirSync(outside)
    writeFileSync(join(outside, 'leak.txt'), secret.value)
    symlinkSync(outside, join(dir, 'to-outside'))
    symlinkSync(dir, join(dir, 'loop'))
    symlinkSync(join(outside, 'leak.txt'), join(dir, 'file-link'))
    const { result } = await scan({ paths: [dir] })
    expect(result.findings).toEqual([])
  })

  it('a file name with terminal escapes and newlines is escaped in the report, never written raw', async () => {
    const dir = join(root, 'names')
    mkdirSync(dir)
    const name = 'x\u001b]0;pwned\u0007\nFAKE_SECRET v9 (current): y'
    writeFileSync(join(dir, name), secret.value)
    const { result } = await scan({ paths: [dir] })
    const report = formatScanReport(result)
    expect([...report].filter((char) => char < ' ' && char !== '\n')).toEqual([])
    expect(report.split('\n')).toHaveLength(2)
  })

  it.each(['__proto__', 'constructor', 'hasOwnProperty'])(
    'a secret named %s is reported like any other',
    async (name) => {
      const dir = join(root, `proto-${name}`)
      mkdirSync(dir)
      writeFileSync(join(dir, 'f'), secret.value)
      const { result } = await scan({ paths: [dir] }, [{ ...secret, name }])
      expect(result.findings.map((finding) => finding.secret)).toEqual([name])
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    },
  )

  it('a short value is counted in a note without its name or value', async () => {
    const { result, notes } = await scan({ paths: [root] }, [
      secret,
      { name: 'PIN_CODE', version: 1, current: true, value: 'zq81' },
    ])
    expect(result.skippedShort).toBe(1)
    expect(notes.join('\n')).toBe('1 value under 8 characters not searched')
  })

  it.each([
    ['a bare word', 'docker'],
    ['an ssh address', 'ssh://host'],
    ['tcp without a port', 'tcp://127.0.0.1'],
    ['an option-looking value', '--rm'],
  ])('--engine refuses %s (usage error, no connection)', (_case, address) => {
    expect(() => parseEngineAddress(address)).toThrow(expect.objectContaining({ code: 'ERR_USAGE' }))
  })

  it('a log stream split at every byte, frame headers included, is demultiplexed exactly', async () => {
    const frame = (stream: number, text: string) => {
      const header = Buffer.alloc(8)
      header[0] = stream
      header.writeUInt32BE(Buffer.byteLength(text), 4)
      return Buffer.concat([header, Buffer.from(text)])
    }
    const wire = Buffer.concat([frame(1, 'hello '), frame(2, ''), frame(2, secret.value), frame(1, '\n')])
    async function* bytes() {
      for (const byte of wire) yield Buffer.from([byte])
    }
    const parts: Buffer[] = []
    for await (const part of demultiplex(bytes())) parts.push(Buffer.from(part))
    expect(Buffer.concat(parts).toString()).toBe(`hello ${secret.value}\n`)
  })

  describe('an engine that answers too much or nonsense', () => {
    let server: Server
    let address: string
    beforeAll(async () => {
      server = createServer((request, response) => {
        if (request.url === '/images/json') {
          response.writeHead(200, { 'content-type': 'application/json' })
          response.write('[')
          const chunk = Buffer.alloc(1 << 20, 0x20)
          let sent = 0
          const more = () => {
            while (sent < 80 && response.write(chunk)) sent++
            if (sent < 80) response.once('drain', more)
            else response.end(']')
          }
          more()
        } else response.writeHead(200).end('{"not": "an array"}')
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      address = `tcp://127.0.0.1:${(server.address() as { port: number }).port}`
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

    it('a JSON answer over 64 MiB is refused (exit 7), not buffered without end', async () => {
      await expect(scan({ engine: address })).rejects.toMatchObject({ code: 'ERR_UNREACHABLE' })
    })
  })

  describe('an engine whose containers and images go away while it is scanned', () => {
    let server: Server
    let address: string
    const read: string[] = []
    beforeAll(async () => {
      // another client removes them between the listing and the reads: every read answers 404
      server = createServer((request, response) => {
        read.push(request.url ?? '')
        const json = (body: unknown) =>
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
        if (request.url === '/images/json') json([{ Id: 'sha256:gone', RepoTags: ['gone:1'] }])
        else if (request.url === '/containers/json?all=1') json([{ Id: 'gone-container' }])
        else
          response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"No such object"}')
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      address = `tcp://127.0.0.1:${(server.address() as { port: number }).port}`
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

    it('skips what is gone (404) and finishes clean, instead of calling the engine unreachable', async () => {
      const result = await scan({ engine: address })
      expect(result.result.findings).toEqual([])
      expect(read).toContain('/containers/gone-container/json')
      expect(read).toContain('/images/sha256%3Agone/history')
    })
  })
})
