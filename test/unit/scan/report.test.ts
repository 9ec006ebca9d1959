/**
 * The human report of `vault scan`: one line per finding whatever the names and paths hold (a file name
 * can carry terminal escapes and line breaks; so can an image's label or a container's name), every
 * control character escaped, and no value in it.
 */
import { describe, expect, it } from 'vitest'
import type { ScanFinding, ScanLocation } from '../../../src/scan/findings.js'
import { describeLocation, formatCleanupReport, formatScanReport } from '../../../src/scan/report.js'
import type { ScanResult } from '../../../src/scan/scan.js'

const hostile = 'evil\u001b]0;pwned\u0007\nfake finding line\r\u009b31m\u202e'
// eslint-disable-next-line no-control-regex -- the test looks for raw control characters
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/

const locations: ScanLocation[] = [
  { source: 'git', commit: '0123456789abcdef0123', path: hostile, line: 3 },
  { source: 'staged', path: hostile, line: 1 },
  { source: 'path', path: hostile, line: 2 },
  { source: 'stdin', line: 9 },
  { source: 'image', image: 'sha256:aaaabbbbccccdddd', tags: [], field: `Labels.${hostile}` },
  { source: 'image', image: 'sha256:aaaabbbbccccdddd', tags: [hostile], field: 'Env.X' },
  { source: 'container', container: 'c0ffee0123456789', name: hostile, field: 'logs', line: 4 },
  { source: 'container', container: 'c0ffee0123456789', name: '', field: 'Cmd' },
]

const finding = (location: ScanLocation, secret = 'DB_PASSWORD'): ScanFinding => ({
  secret,
  version: 3,
  current: false,
  encoding: 'base64',
  location,
})

const result = (findings: ScanFinding[]): ScanResult => ({
  secrets: 2,
  values: 1,
  skippedShort: 0,
  scanned: ['git . (4 commits)'],
  findings,
})

describe('describeLocation', () => {
  it('says where, shortening commits and image ids to 12 characters', () => {
    expect(locations.map(describeLocation).filter((line) => !line.includes('evil'))).toEqual([
      'stdin:9',
      'container c0ffee012345 Cmd',
    ])
    expect(describeLocation(locations[0]!)).toMatch(/^commit 0123456789ab /)
    expect(describeLocation(locations[4]!)).toMatch(/^image aaaabbbbcccc Labels\./)
  })

  it.each(locations.map((location) => [location.source, location] as const))(
    'escapes every control character of a %s location',
    (_, location) => {
      const line = describeLocation(location)
      expect(line).not.toMatch(controls)
      expect(line).not.toContain('\n')
    },
  )
})

describe('formatScanReport', () => {
  it('gives one line per finding and a summary', () => {
    const report = formatScanReport(result(locations.map((location) => finding(location))))
    const lines = report.split('\n')
    expect(lines).toHaveLength(locations.length + 1)
    expect(report).not.toMatch(controls)
    expect(lines[3]).toBe('DB_PASSWORD v3 (past) as base64: stdin:9')
    expect(lines.at(-1)).toBe('8 findings (1 value of 2 secrets; git . (4 commits))')
  })

  it('says clean when nothing was found, with singular and plural right', () => {
    expect(formatScanReport({ ...result([]), values: 2, secrets: 1 })).toBe(
      'clean: no value found (2 values of 1 secret; git . (4 commits))',
    )
    expect(
      formatScanReport(result([finding(locations[3]!)]))
        .split('\n')
        .at(-1),
    ).toMatch(/^1 finding \(/)
  })
})

describe('formatCleanupReport', () => {
  it('lists what is left to clean, escaped, one line each', () => {
    const report = formatCleanupReport(
      [{ name: 'DB_PASSWORD', error: { message: 'the vault said no', code: 'ERR' } }],
      {
        commits: [{ commit: 'abc', paths: [hostile, 'b'] }],
        images: [{ image: 'sha256:1', tags: [], fields: [hostile] }],
        containers: [{ container: 'c1', name: hostile, fields: ['Env.X'] }],
        files: [hostile],
      },
    )
    const lines = report.split('\n')
    expect(report).not.toMatch(controls)
    expect(lines).toHaveLength(6)
    expect(lines[0]).toBe('not rotated DB_PASSWORD: the vault said no')
    expect(lines[3]).toMatch(/^ {2}rebuild image sha256:1 \(/)
  })

  it('says when there was nothing to rotate and nothing to clean', () => {
    expect(formatCleanupReport([], { commits: [], images: [], containers: [], files: [] })).toBe(
      'no current value found: nothing to rotate',
    )
  })
})
