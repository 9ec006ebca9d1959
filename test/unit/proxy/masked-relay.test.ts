/** The masking step of the relay: process lists wait for their container's environment, or fail closed. */
import { describe, expect, it } from 'vitest'
import type { ExchangeHandlers } from '../../../src/proxy/exchange.js'
import type { ContainerFacts, ReadContainer } from '../../../src/proxy/container-environment.js'
import { withEnvMasking } from '../../../src/proxy/masked-relay.js'

/** A ReadContainer that answers with `values` (or the failure) for any container. */
type ReadEnvironment = (done: (facts: ContainerFacts | { failed: string }) => void) => void
const reader =
  (read: ReadEnvironment): ReadContainer =>
  (_target, done) =>
    read(done)

const canary = 'canary-relay-4d1e'
const top = JSON.stringify({ Titles: ['PID', 'CMD'], Processes: [['1', `app --key ${canary}`]] })

/** One turn of the event loop: held answers are masked one per turn. */
const turn = () => new Promise((resolve) => setImmediate(resolve))

/** Runs one answer through the masking handlers; returns what reached the client. */
function relay(path: string, readEnvironment: ReadEnvironment) {
  const sent: { passed: string[]; whole?: string; error?: [number, string] } = { passed: [] }
  const passThrough: ExchangeHandlers = {
    onHead: () => sent.passed.push('head'),
    onBody: (chunk) => sent.passed.push(chunk.toString()) > 0,
    onEnd: () => sent.passed.push('end'),
    onError: () => sent.passed.push('error'),
  }
  const exchange = { resume: () => {}, abort: () => {} }
  const handlers = withEnvMasking(
    passThrough,
    { method: 'GET', path, target: path },
    {
      getExchange: () => exchange,
      reply: {
        whole: (_status, _message, _headers, body) => (sent.whole = body.toString()),
        error: (status, message) => (sent.error = [status, message]),
      },
      readContainer: reader(readEnvironment),
    },
  )
  handlers.onHead(200, 'OK', ['Content-Type', 'application/json'])
  handlers.onBody(Buffer.from(top))
  handlers.onEnd()
  return sent
}

describe('withEnvMasking on a process list', () => {
  it("masks it with the values its container's inspect gives", async () => {
    const sent = relay('/v1.41/containers/db/top', (done) => done({ values: [canary], tty: false }))
    await turn()
    expect(sent.passed).toEqual([])
    expect(sent.whole).toContain('app --key ********')
    expect(sent.whole).not.toContain(canary)
  })

  it('is a 502 with the reason, never the list, when the environment cannot be read', async () => {
    const sent = relay('/v1.41/containers/db/top', (done) =>
      done({ failed: 'the engine answered its inspect with 404' }),
    )
    await turn()
    expect(sent.passed).toEqual([])
    expect(sent.whole).toBeUndefined()
    expect(sent.error?.[0]).toBe(502)
    expect(sent.error?.[1]).toContain('404')
    expect(sent.error?.[1]).not.toContain(canary)
  })

  it('is delivered only once the environment arrives (asynchronously)', async () => {
    let answer: ((facts: ContainerFacts) => void) | undefined
    const sent = relay('/v1.41/containers/db/top', (done) => (answer = done))
    expect(sent.whole).toBeUndefined()
    await turn()
    expect(sent.whole).toBeUndefined()
    answer!({ values: [canary], tty: false })
    expect(sent.whole).toContain('********')
  })

  it('passes other answers through untouched without reading any environment', () => {
    const sent = relay('/v1.41/containers/db/changes', () => {
      throw new Error('read for a list of changes')
    })
    expect(sent.passed).toEqual(['head', top, 'end'])
  })
})
