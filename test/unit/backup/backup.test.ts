import { describe, expect, it } from 'vitest'
import { defaultArchiveName } from '../../../src/backup/backup.js'

describe('backup helpers: defaultArchiveName', () => {
  it('names archives by their UTC time without colons', () => {
    expect(defaultArchiveName(new Date('2026-11-22T03:04:05.678Z'))).toBe(
      'vault-backup-2026-11-22T03-04-05Z.jsonl.gz',
    )
  })
})
