/**
 * The stream copy of masked output (src/masking/masked-output.ts), which `vault run` uses where it cannot
 * make a socket or FIFO for the child (Windows): a real child's pipe into a target that stalls, so
 * that back-pressure pauses the source. Nothing is lost or reordered and no value gets through.
 */
import { spawn } from 'node:child_process'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { pipeMasked } from '../../../src/masking/masked-output.js'

const canary = 'CANARY-stream-copy-71c2'

describe('pipeMasked', () => {
  it('loses and reorders nothing when the target stalls, and masks every value', async () => {
    const writer =
      "const line = 'x'.repeat(200) + ' ' + process.env.CANARY + '\\n';" +
      'for (let i = 0; i < 16000; i++) process.stdout.write(String(i).padStart(6) + line)'
    const child = spawn(process.execPath, ['-e', writer], {
      env: { CANARY: canary },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const received: Buffer[] = []
    // the first writes stall (counted, not timed: the writer may take longer to start than a window lasts)
    let pauses = 0
    const stalledWrites = 10
    const target = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        received.push(Buffer.from(chunk))
        if (pauses < stalledWrites) {
          pauses++
          setTimeout(callback, 20)
        } else callback()
      },
    })
    await pipeMasked(child.stdout, target, [canary])
    const lines = Buffer.concat(received).toString().split('\n')
    expect(lines.pop()).toBe('')
    expect(lines).toHaveLength(16000)
    lines.forEach((line, i) => expect(line).toBe(`${String(i).padStart(6)}${'x'.repeat(200)} ********`))
    expect(pauses).toBe(stalledWrites)
  })
})
