import { describe, expect, it } from 'vitest'
import { formatBytes } from '../../../src/backup/report.js'

describe('backup helpers: formatBytes', () => {
  it.each([
    [512, '512 B'],
    [2048, '2.0 KiB'],
    [3 * 1024 * 1024, '3.0 MiB'],
  ])('formats %d bytes as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text)
  })
})
