/** Held answers asked of the engine a few at a time, first come first served; a slot is freed once. */
import { describe, expect, it } from 'vitest'
import type { Exchange } from '../../../src/proxy/exchange.js'
import { createMaskedSlots } from '../../../src/proxy/masked-slots.js'

function recorder() {
  const events: string[] = []
  const start = (name: string) => (): Exchange => {
    events.push(`start ${name}`)
    return { resume: () => events.push(`resume ${name}`), abort: () => events.push(`abort ${name}`) }
  }
  return { events, start }
}

describe('createMaskedSlots', () => {
  it('runs at most `size` at once and starts the next in order when one is done', () => {
    const { events, start } = recorder()
    const slots = createMaskedSlots(2)
    const a = slots.run(start('a'))
    const b = slots.run(start('b'))
    const c = slots.run(start('c'))
    slots.run(start('d'))
    expect(events).toEqual(['start a', 'start b'])
    c.exchange.resume()
    expect(events).toEqual(['start a', 'start b'])
    a.done()
    a.done()
    expect(events).toEqual(['start a', 'start b', 'start c'])
    b.exchange.abort()
    expect(events).toEqual(['start a', 'start b', 'start c', 'abort b', 'start d'])
  })

  it('a waiting exchange aborted (its client left) leaves the queue and never starts', () => {
    const { events, start } = recorder()
    const slots = createMaskedSlots(1)
    const a = slots.run(start('a'))
    const b = slots.run(start('b'))
    slots.run(start('c'))
    b.exchange.abort()
    b.done()
    a.done()
    expect(events).toEqual(['start a', 'start c'])
  })
})
