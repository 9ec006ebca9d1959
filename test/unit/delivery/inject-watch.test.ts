/**
 * `vault inject --watch` (src/delivery/inject-watch.ts) against a tiny vault whose change feed the test
 * drives event by event, with a real template and output file (read back with node:fs, mode checked
 * with stat). A change of a variable the template does not use loads nothing; one it uses loads and
 * rewrites the file and runs --exec; a load that gives the same text does not rewrite; a rendering
 * error or a failed load leaves the file as it was; notes never carry a value. Stopped with SIGINT
 * as emitted to this process's own listeners (no real signal).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { injectWatching } from '../../../src/delivery/inject-watch.js'
import { createTempHome, type TempHome } from '../../helpers/temp-home.js'
import { sendJson, startTinyServer, type TinyServer } from '../../helpers/tiny-server.js'

const canary1 = 'CANARY-inject-watch-1-a7'
const canary2 = 'CANARY-inject-watch-2-c3'

let home: TempHome
let server: TinyServer
let dir: string
let stream: ServerResponse | undefined
let eventId = 1

beforeEach(async () => {
  home = createTempHome()
  for (const [name, value] of Object.entries(home.env)) vi.stubEnv(name, value)
  dir = mkdtempSync(join(tmpdir(), 'inject-watch-'))
  stream = undefined
  server = await startTinyServer((request, response) => {
    if (request.url === '/api/v1/auth/token')
      return sendJson(response, 200, { access_token: 'token-1', token_type: 'Bearer', expires_in: 900 })
    stream = response
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    response.write(`id: ${eventId++}\nevent: ready\ndata: {"environment":"dev"}\n\n`)
  })
})
afterEach(async () => {
  vi.unstubAllEnvs()
  stream?.destroy()
  await server.close()
  home.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

function changed(name: string): void {
  stream!.write(
    `id: ${eventId++}\nevent: secret\ndata: {"name":"${name}","version":2,"change":"updated","at":"2026-01-01T00:00:00Z"}\n\n`,
  )
}

async function until(check: () => boolean, ms = 4000): Promise<void> {
  for (let waited = 0; !check(); waited += 5) {
    if (waited > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** Starts watching `template`; `secrets()` is what each load gives (or throws). */
function watch(template: string, secrets: () => Record<string, string>) {
  const templatePath = join(dir, 'app.tpl')
  const outputPath = join(dir, 'app.env')
  writeFileSync(templatePath, template)
  const notes: string[] = []
  let loads = 0
  let execs = 0
  const watching = injectWatching({
    settings: { domain: server.url, clientId: 'cid', clientSecret: 'secret', insecure: false },
    environment: 'dev',
    note: (line) => void notes.push(line),
    timings: { debounce: { quietMs: 10, maxWaitMs: 50 }, connectWaitMs: 5000 },
    templatePath,
    outputPath,
    hostEnv: { HOST_ONLY: 'from-host' },
    load: async () => {
      loads++
      return secrets()
    },
    exec: async () => {
      execs++
      return execs === 2 ? 3 : 0
    },
  })
  return {
    notes,
    watching,
    outputPath,
    templatePath,
    loads: () => loads,
    execs: () => execs,
    output: () => readFileSync(outputPath, 'utf8'),
    stop: async () => {
      process.emit('SIGINT')
      return watching
    },
  }
}

describe('injectWatching', () => {
  it('renders at once, ignores changes of unused names, re-renders on used ones, and runs --exec', async () => {
    let value = canary1
    const run = watch('A=${A}\nH=${HOST_ONLY}\n', () => ({ A: value, UNUSED: 'x' }))
    await until(() => run.notes.some((note) => note.startsWith('watching')))
    expect(run.output()).toBe(`A=${canary1}\nH=from-host\n`)
    expect(statSync(run.outputPath).mode & 0o777).toBe(0o600)
    expect(run.notes).toContain('watching A, HOST_ONLY for changes; stop with Ctrl-C')
    expect([run.loads(), run.execs()]).toEqual([1, 1])

    changed('UNUSED')
    await until(() => run.notes.some((note) => note.includes('does not use it')))
    expect(run.loads()).toBe(1)

    value = canary2
    changed('A')
    await until(() => run.execs() === 2)
    expect(run.output()).toBe(`A=${canary2}\nH=from-host\n`)
    expect(run.loads()).toBe(2)
    expect(run.notes).toContain('Warning: --exec exited with 3')

    const result = await run.stop()
    expect(result.written).toBe(true)
    expect(result.template).toBe(run.templatePath)
    expect(run.notes.join('\n')).not.toContain(canary1)
    expect(run.notes.join('\n')).not.toContain(canary2)
  })

  it('does not rewrite nor run --exec when the text is unchanged', async () => {
    const run = watch('A=${A}\n', () => ({ A: canary1 }))
    await until(() => run.notes.some((note) => note.startsWith('watching')))
    writeFileSync(run.outputPath, 'edited by hand\n', { mode: 0o600 })
    changed('A')
    await until(() => run.notes.some((note) => note.endsWith('unchanged: not rewritten')))
    expect(run.output()).toBe('edited by hand\n')
    expect(run.execs()).toBe(1)
    await run.stop()
  })

  it('keeps the file when a re-render fails or the load fails, and says so without a value', async () => {
    let secrets: () => Record<string, string> = () => ({ A: canary1, B: 'b' })
    const run = watch('A=${A}\nB=${B:?B is required}\n', () => secrets())
    await until(() => run.notes.some((note) => note.startsWith('watching')))
    const first = run.output()
    secrets = () => ({ A: canary2 })
    changed('B')
    await until(() => run.notes.some((note) => note.includes('is left as it was')))
    expect(run.output()).toBe(first)
    secrets = () => {
      throw new Error('the vault is down')
    }
    changed('A')
    await until(() => run.notes.filter((note) => note.includes('is left as it was')).length === 2)
    expect(run.notes.at(-1)).toContain('the vault is down')
    expect(run.output()).toBe(first)
    expect(run.notes.join('\n')).not.toContain(canary2)
    expect(run.execs()).toBe(1)
    await run.stop()
  })

  it('fails at once on a rendering error in the first render, writing nothing', async () => {
    const run = watch('A=${A:?A is required}\n', () => ({}))
    await expect(run.watching).rejects.toThrow(/A is required/)
    expect(() => statSync(run.outputPath)).toThrow()
  })
})
