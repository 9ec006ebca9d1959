/**
 * What `vault scan` reports: a finding names the secret, the version, whether that version is the
 * current one, the encoding and where the text was (never the value). The collector turns pattern
 * occurrences into findings, one per secret version, encoding and place (a path, a field): the first
 * occurrence is kept (the oldest commit, the first line).
 */
import type { Encoding, PatternSet } from './patterns.js'

export type ScanLocation =
  | { source: 'git'; commit: string; path: string; line: number }
  | { source: 'staged'; path: string; line: number }
  | { source: 'path'; path: string; line: number }
  | { source: 'stdin'; line: number }
  | { source: 'image'; image: string; tags: string[]; field: string; line?: number }
  | {
      source: 'container'
      container: string
      name: string
      /** The compose service (label), when the container belongs to one. */
      service?: string
      field: string
      line?: number
    }

export interface ScanFinding {
  secret: string
  version: number
  current: boolean
  encoding: Encoding
  location: ScanLocation
}

/** Where a finding is, without the line or commit: two findings at one place count once (JSON: no separator to forge). */
function placeKey(location: ScanLocation): string {
  switch (location.source) {
    case 'git':
    case 'staged':
    case 'path':
      return JSON.stringify([location.source, location.path])
    case 'stdin':
      return 'stdin'
    case 'image':
      return JSON.stringify(['image', location.image, location.field])
    case 'container':
      return JSON.stringify(['container', location.container, location.field])
  }
}

/** Collects findings from pattern occurrences, first occurrence per secret version, encoding and place. */
export class FindingCollector {
  readonly findings: ScanFinding[] = []
  private readonly seen = new Set<string>()

  constructor(private readonly set: PatternSet) {}

  /** Records an occurrence of pattern `pattern` at `location`; `keep` may refuse an owner. */
  add(pattern: number, location: ScanLocation, keep?: (finding: ScanFinding) => boolean): void {
    for (const owner of this.set.owners[pattern] ?? []) {
      const key = [owner.name, owner.version, owner.encoding, placeKey(location)].join('\0')
      if (this.seen.has(key)) continue
      const finding: ScanFinding = {
        secret: owner.name,
        version: owner.version,
        current: owner.current,
        encoding: owner.encoding,
        location,
      }
      if (keep && !keep(finding)) continue
      this.seen.add(key)
      this.findings.push(finding)
    }
  }
}
