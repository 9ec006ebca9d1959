import { describe, expect, it } from 'vitest'
import { channelCount, maskedStreams, planMasking } from '../../../src/masking/mask-plan.js'

describe('planMasking', () => {
  it.each([
    ['both terminals, no flag', undefined, true, true, undefined],
    ['stdout piped, no flag', undefined, false, true, { stdout: true, stderr: false }],
    ['stderr to a file, no flag', undefined, true, false, { stdout: false, stderr: true }],
    ['both piped, no flag', undefined, false, false, { stdout: true, stderr: true }],
    ['--mask on terminals', true, true, true, { stdout: true, stderr: true }],
    ['--no-mask on pipes', false, false, false, undefined],
  ])('%s', async (_what, flag, stdoutIsTerminal, stderrIsTerminal, expected) => {
    const plan = await planMasking({ flag, stdoutIsTerminal, stderrIsTerminal, values: ['long-value'] })
    if (expected === undefined) expect(plan).toBeUndefined()
    else expect(plan).toMatchObject({ ...expected, values: ['long-value'] })
  })

  it('masks only values of 4 characters or more and says once how many are left out, never which', async () => {
    const plan = await planMasking({
      flag: true,
      stdoutIsTerminal: false,
      stderrIsTerminal: false,
      values: ['abc', 'xy', 'long-value', 'abc', ''],
    })
    expect(plan?.values).toEqual(['long-value'])
    expect(plan?.note).toBe(
      '2 secret values are shorter than 4 characters and will not be masked in the output',
    )
  })

  it.each([
    ['2>&1 into a pipe', undefined, false, false, true, true, 1],
    ['stdout and stderr into different pipes', undefined, false, false, false, false, 2],
    ['--mask on one terminal', true, true, true, true, true, 1],
    ['only stdout masked (stderr a terminal)', undefined, false, true, false, false, 1],
    ['--no-mask on one pipe', false, false, false, true, false, 0],
  ])('%s', (_what, flag, stdoutIsTerminal, stderrIsTerminal, sameOutput, shared, channels) => {
    const streams = maskedStreams({ flag, stdoutIsTerminal, stderrIsTerminal, sameOutput })
    expect(streams.shared).toBe(shared)
    expect(channelCount(streams)).toBe(channels)
  })
})
