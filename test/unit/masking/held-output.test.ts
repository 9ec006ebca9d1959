/**
 * The child's held-back output shown before a line of the CLI's own: every running copy's release is
 * called, and a finished copy's no longer.
 */
import { describe, expect, it } from 'vitest'
import { releaseHeldOutput, trackHeldOutput } from '../../../src/masking/held-output.js'

describe('held output', () => {
  it('releases what every running copy holds, and forgets a finished one', () => {
    const calls: string[] = []
    const untrackA = trackHeldOutput(() => calls.push('a'))
    const untrackB = trackHeldOutput(() => calls.push('b'))
    releaseHeldOutput()
    expect(calls).toEqual(['a', 'b'])
    untrackA()
    releaseHeldOutput()
    expect(calls).toEqual(['a', 'b', 'b'])
    untrackB()
    releaseHeldOutput()
    expect(calls).toEqual(['a', 'b', 'b'])
  })
})
