import { describe, expect, it, vi } from 'vitest'
import { compactAfterBurst } from '../../../src/proxy/admission.js'

describe('compactAfterBurst', () => {
  it('collects once when a burst of connections has mostly gone', async () => {
    vi.useFakeTimers()
    try {
      const collect = vi.fn()
      const burst = compactAfterBurst(collect)
      for (let open = 1; open <= 400; open++) burst.opened(open)
      for (let open = 399; open >= 0; open--) burst.closed(open)
      vi.advanceTimersByTime(200)
      expect(collect).toHaveBeenCalledTimes(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('does not collect after a few connections, nor while most of a burst is still open', () => {
    vi.useFakeTimers()
    try {
      const collect = vi.fn()
      const small = compactAfterBurst(collect)
      for (let open = 1; open <= 100; open++) small.opened(open)
      for (let open = 99; open >= 0; open--) small.closed(open)
      const large = compactAfterBurst(collect)
      for (let open = 1; open <= 400; open++) large.opened(open)
      for (let open = 399; open >= 101; open--) large.closed(open)
      vi.advanceTimersByTime(200)
      expect(collect).not.toHaveBeenCalled()
    } finally {
      vi.useRealTimers()
    }
  })
})
