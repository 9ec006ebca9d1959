/**
 * The findings of `vault scan`: one per secret version, encoding and place, the first occurrence kept;
 * a pattern shared by several owners (two secrets with one value) gives a finding for each.
 */
import { describe, expect, it } from 'vitest'
import { FindingCollector, type ScanLocation } from '../../../src/scan/findings.js'
import type { PatternSet } from '../../../src/scan/patterns.js'

const set: PatternSet = {
  patterns: [Buffer.from('value-one'), Buffer.from('dmFsdWUtb25l')],
  owners: [
    [
      { name: 'A', version: 2, current: true, encoding: 'plain' },
      { name: 'B', version: 1, current: false, encoding: 'plain' },
    ],
    [{ name: 'A', version: 2, current: true, encoding: 'base64' }],
  ],
  values: 1,
  tooShort: 0,
}

const git = (commit: string, path: string, line: number): ScanLocation => ({
  source: 'git',
  commit,
  path,
  line,
})

describe('FindingCollector', () => {
  it('keeps the first occurrence per owner, encoding and place', () => {
    const collector = new FindingCollector(set)
    collector.add(0, git('old', 'app/.env', 3))
    collector.add(0, git('new', 'app/.env', 9))
    collector.add(1, git('new', 'app/.env', 9))
    collector.add(0, git('new', 'other/.env', 1))
    expect(collector.findings.map((f) => [f.secret, f.version, f.encoding, f.location])).toEqual([
      ['A', 2, 'plain', git('old', 'app/.env', 3)],
      ['B', 1, 'plain', git('old', 'app/.env', 3)],
      ['A', 2, 'base64', git('new', 'app/.env', 9)],
      ['A', 2, 'plain', git('new', 'other/.env', 1)],
      ['B', 1, 'plain', git('new', 'other/.env', 1)],
    ])
  })

  it('tells places apart by source, image field and container field', () => {
    const collector = new FindingCollector(set)
    const places: ScanLocation[] = [
      { source: 'path', path: 'app/.env', line: 1 },
      { source: 'staged', path: 'app/.env', line: 1 },
      { source: 'stdin', line: 1 },
      { source: 'stdin', line: 7 },
      { source: 'image', image: 'sha256:1', tags: [], field: 'Env' },
      { source: 'image', image: 'sha256:1', tags: ['x'], field: 'Labels' },
      { source: 'container', container: 'c1', name: 'web', field: 'Env' },
      { source: 'container', container: 'c1', name: 'renamed', field: 'Env' },
    ]
    for (const place of places) collector.add(1, place)
    expect(collector.findings.map((f) => f.location)).toEqual([
      places[0],
      places[1],
      places[2],
      places[4],
      places[5],
      places[6],
    ])
  })

  it('does not mix up a path holding the separator with another place', () => {
    const collector = new FindingCollector(set)
    collector.add(1, { source: 'image', image: 'a', tags: [], field: 'b\0c' })
    collector.add(1, { source: 'image', image: 'a\0b', tags: [], field: 'c' })
    expect(collector.findings).toHaveLength(2)
  })

  it('lets a refused owner be found again at the same place later', () => {
    const collector = new FindingCollector(set)
    collector.add(0, git('c1', 'f', 1), (finding) => finding.secret !== 'A')
    collector.add(0, git('c2', 'f', 2))
    expect(collector.findings.map((f) => [f.secret, f.location])).toEqual([
      ['B', git('c1', 'f', 1)],
      ['A', git('c2', 'f', 2)],
    ])
  })

  it('ignores a pattern index it does not know', () => {
    const collector = new FindingCollector(set)
    collector.add(5, { source: 'stdin', line: 1 })
    collector.add(Number('constructor'), { source: 'stdin', line: 1 })
    expect(collector.findings).toEqual([])
  })
})
