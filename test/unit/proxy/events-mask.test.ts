/** The event stream, masked event by event with the environment of the container each event is about. */
import { describe, expect, it } from 'vitest'
import type { ContainerFacts } from '../../../src/proxy/container-environment.js'
import { createEventsMasker, maxEventBytes } from '../../../src/proxy/events-mask.js'

const canary = 'canary-events-31aa'
const id = 'ab'.repeat(32)
const gone = 'cd'.repeat(32)

const execStart = {
  status: `exec_start: /bin/sh -c test ${canary} = $DB_PASSWORD`,
  id,
  from: 'busybox',
  Type: 'container',
  Action: `exec_start: /bin/sh -c test ${canary} = $DB_PASSWORD`,
  Actor: { ID: id, Attributes: { execID: 'e1', image: 'busybox', name: 'db', note: `x${canary}` } },
  scope: 'local',
  time: 1764313200,
  timeNano: 1,
}

function run(chunks: Buffer[], facts: (target: string) => ContainerFacts | { failed: string }) {
  const reads: string[] = []
  const masker = createEventsMasker((target, done) => {
    reads.push(target)
    queueMicrotask(() => done(facts(target)))
  })
  const sent: Buffer[] = []
  return new Promise<{ text: string; reads: string[]; error?: Error }>((resolve) => {
    const send = (bytes: Buffer) => sent.push(bytes)
    const next = (i: number) => {
      if (i === chunks.length)
        return masker.end(send, (error) => resolve({ text: Buffer.concat(sent).toString(), reads, error }))
      masker.push(chunks[i]!, send, (error) => {
        if (error) resolve({ text: Buffer.concat(sent).toString(), reads, error })
        else next(i + 1)
      })
    }
    next(0)
  })
}

/** One event line; its timeNano as the engine writes it, beyond 2^53. */
const line = (event: object) =>
  JSON.stringify(event).replace('"timeNano":1', '"timeNano":1764313200123456789') + '\n'

describe('createEventsMasker', () => {
  it.each([1, 5, 64, 100_000])(
    'masks Action, status and Actor.Attributes of a container event (split every %i bytes)',
    async (step) => {
      const bytes = Buffer.from(
        line(execStart) + line({ Type: 'image', Action: 'pull', Actor: { ID: 'busybox' } }),
      )
      const chunks: Buffer[] = []
      for (let i = 0; i < bytes.length; i += step) chunks.push(bytes.subarray(i, i + step))
      const { text, reads, error } = await run(chunks, () => ({ values: [canary], tty: false }))
      expect(error).toBeUndefined()
      expect(text).not.toContain(canary)
      const [masked, image] = text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l))
      expect(masked.Action).toBe('exec_start: /bin/sh -c test ******** = $DB_PASSWORD')
      expect(masked.status).toBe(masked.Action)
      expect(masked.Actor.Attributes).toEqual({
        execID: 'e1',
        image: 'busybox',
        name: 'db',
        note: 'x********',
      })
      expect(text).toContain('"timeNano":1764313200123456789')
      expect(image).toEqual({ Type: 'image', Action: 'pull', Actor: { ID: 'busybox' } })
      expect(reads).toEqual([`/containers/${id}/json`])
    },
  )

  it('reads each container once per stream', async () => {
    const bytes = Buffer.from(line(execStart).repeat(5))
    const { reads } = await run([bytes], () => ({ values: [canary], tty: false }))
    expect(reads).toHaveLength(1)
  })

  // Attributes are the container's labels, name and image, which no masking touches anywhere else.
  const unknown = (actor: string) => ({
    ...execStart,
    id: actor,
    Actor: { ID: actor, Attributes: { name: 'db' } },
  })

  it('masks the whole detail of the action of a container whose environment cannot be read', async () => {
    const event = unknown(gone)
    const { text } = await run([Buffer.from(line(event))], () => ({ failed: 'gone' }))
    expect(text).not.toContain(canary)
    expect(JSON.parse(text).Action).toBe('exec_start: ********')
  })

  it.each([
    ['an actor id that is not a container id (no request built from it)', '../../images/x'],
    ['an actor id named __proto__', '__proto__'],
  ])('%s: the detail is masked, nothing is read', async (_case, actor) => {
    const event = unknown(actor)
    const { text, reads } = await run([Buffer.from(line(event))], () => ({ values: [], tty: false }))
    expect(reads).toEqual([])
    expect(text).not.toContain(canary)
  })

  it('ends the stream on an event longer than the cap or a line that is not a JSON object', async () => {
    const long = await run([Buffer.from('{"a":"' + 'x'.repeat(maxEventBytes))], () => ({
      values: [],
      tty: false,
    }))
    expect(long.error?.message).toContain('longer than')
    const text = await run([Buffer.from(`[1]\n${line(execStart)}`)], () => ({ values: [canary], tty: false }))
    expect(text.error?.message).toContain('not JSON objects')
    expect(text.text).toBe('')
  })
})
