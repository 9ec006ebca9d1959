import { describe, expect, it } from 'vitest'
import { sseEvent, streamChanges } from '../../../../src/server/secrets/change-feed.js'
import type { SecretChange } from '../../../../src/server/secrets/event-rows.js'
import { ApiError } from '../../../../src/server/http/http.js'

function sink() {
  const stop = new AbortController()
  let text = ''
  return {
    write: (chunk: string) => void (text += chunk),
    drained: () => Promise.resolve(),
    signal: stop.signal,
    text: () => text,
    stop,
  }
}

const change = (seq: number, name: string): SecretChange => ({
  seq,
  name,
  version: seq,
  change: 'updated',
  at: 'now',
})

describe('the change feed stream', () => {
  it('starts with ready at the start cursor, then one event per change with its sequence number as id', async () => {
    const out = sink()
    const pages = [[change(5, 'A'), change(7, 'B')], [], []]
    const asked: number[] = []
    await streamChanges(out, {
      startSeq: 4,
      environment: 'dev',
      timing: { pollMs: 1, heartbeatMs: 60_000 },
      poll: async (after) => {
        asked.push(after)
        const page = pages.shift()
        if (!page) out.stop.abort()
        return page ?? []
      },
    })
    expect(out.text()).toBe(
      'retry: 2000\n' +
        sseEvent('ready', 4, { environment: 'dev' }) +
        'id: 5\nevent: secret\ndata: {"name":"A","version":5,"change":"updated","at":"now"}\n\n' +
        'id: 7\nevent: secret\ndata: {"name":"B","version":7,"change":"updated","at":"now"}\n\n',
    )
    expect(asked.slice(0, 2)).toEqual([4, 7])
  })

  it('ends with an error event (code and message only) when a poll is refused', async () => {
    const out = sink()
    await streamChanges(out, {
      startSeq: 1,
      environment: 'dev',
      timing: { pollMs: 1, heartbeatMs: 60_000 },
      poll: async () => {
        throw new ApiError(403, 'forbidden', "this identity has no read permission on 'dev'")
      },
    })
    expect(out.text()).toMatch(
      /event: error\ndata: \{"code":"forbidden","message":"this identity has no read permission on 'dev'"\}\n\n$/,
    )
  })

  it('writes a heartbeat comment when idle', async () => {
    const out = sink()
    let polls = 0
    await streamChanges(out, {
      startSeq: 1,
      environment: 'dev',
      timing: { pollMs: 1, heartbeatMs: 0 },
      poll: async () => {
        if (++polls > 2) out.stop.abort()
        return []
      },
    })
    expect(out.text()).toContain(': heartbeat\n\n')
  })
})
