/** Random bytes on the start-up path: from the kernel's generator, never a fixed or repeated value. */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { startUpRandomBytes } from '../../../src/crypto/start-up-random.js'

describe('startUpRandomBytes', () => {
  it('gives the size asked for, different every time, spread over every byte value', () => {
    const samples = Array.from({ length: 2000 }, () => startUpRandomBytes(16))
    expect(samples.every((bytes) => bytes.length === 16)).toBe(true)
    expect(new Set(samples.map((bytes) => bytes.toString('hex'))).size).toBe(samples.length)
    const counts = new Array<number>(256).fill(0)
    for (const bytes of samples) for (const byte of bytes) counts[byte]!++
    // 32,000 bytes: 125 expected per value; a fixed or biased source falls far outside this band
    expect(Math.min(...counts)).toBeGreaterThan(60)
    expect(Math.max(...counts)).toBeLessThan(200)
  })

  it('does not load node:crypto where /dev/urandom exists', () => {
    const script = [
      'const { startUpRandomBytes } = await import(process.argv[1])',
      'startUpRandomBytes(16)',
      "process.stdout.write(String(process.moduleLoadList.some((name) => name === 'NativeModule crypto')))",
    ].join(';')
    const module = new URL('../../../dist/crypto/start-up-random.js', import.meta.url).pathname
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, module], {
      encoding: 'utf8',
    })
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe('false')
  })
})
