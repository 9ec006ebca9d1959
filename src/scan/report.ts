/**
 * The human report of `vault scan`: one line per finding (secret, version, current or past, encoding,
 * where), then, after --rotate, what each rotation did and what is left to clean. Names and paths are
 * escaped for the terminal (a file name can hold control characters); no value is ever part of it.
 */
import { escapeField } from '../text/terminal-text.js'
import type { ScanFinding, ScanLocation } from './findings.js'
import type { LeftToClean, ScanRotation } from './rotate-found.js'
import type { ScanResult } from './scan.js'

/** Where a finding is, as the report prints it. */
export function describeLocation(location: ScanLocation): string {
  const line = (value?: number) => (value === undefined ? '' : `:${value}`)
  switch (location.source) {
    case 'git':
      return `commit ${location.commit.slice(0, 12)} ${escapeField(location.path)}${line(location.line)}`
    case 'staged':
      return `staged ${escapeField(location.path)}${line(location.line)}`
    case 'path':
      return `${escapeField(location.path)}${line(location.line)}`
    case 'stdin':
      return `stdin${line(location.line)}`
    case 'image':
      return `image ${escapeField(location.tags[0] ?? location.image.replace(/^sha256:/, '').slice(0, 12))} ${escapeField(location.field)}${line(location.line)}`
    case 'container':
      return `container ${escapeField(location.name || location.container.slice(0, 12))} ${escapeField(location.field)}${line(location.line)}`
  }
}

function describeFinding(finding: ScanFinding): string {
  const version = `v${finding.version} (${finding.current ? 'current' : 'past'})`
  const encoding = finding.encoding === 'plain' ? '' : ` as ${finding.encoding}`
  return `${escapeField(finding.secret)} ${version}${encoding}: ${describeLocation(finding.location)}`
}

/** The report of a scan (stdout). */
export function formatScanReport(result: ScanResult): string {
  const lines = result.findings.map(describeFinding)
  const searched = `${result.values} value${result.values === 1 ? '' : 's'} of ${result.secrets} secret${result.secrets === 1 ? '' : 's'}`
  lines.push(
    result.findings.length === 0
      ? `clean: no value found (${searched}; ${result.scanned.join(', ')})`
      : `${result.findings.length} finding${result.findings.length === 1 ? '' : 's'} (${searched}; ${result.scanned.join(', ')})`,
  )
  return lines.join('\n')
}

/** What the rotations did and what is left to clean (stderr, after --rotate). */
export function formatCleanupReport(rotations: readonly ScanRotation[], left: LeftToClean): string {
  const lines = rotations.map((rotation) =>
    rotation.result
      ? `rotated ${rotation.name}: version ${rotation.result.previousVersion} -> ${rotation.result.version}, ${rotation.result.outcome}${rotation.result.services.length > 0 ? `, recreated ${rotation.result.services.map((s) => s.service).join(', ')}` : ''}`
      : `not rotated ${rotation.name}: ${rotation.error?.message ?? 'failed'}`,
  )
  if (rotations.length === 0) lines.push('no current value found: nothing to rotate')
  const todo: string[] = []
  for (const entry of left.commits)
    todo.push(`  rewrite commit ${entry.commit} (${entry.paths.map(escapeField).join(', ')})`)
  for (const entry of left.images)
    todo.push(
      `  rebuild image ${escapeField(entry.tags.join(', ') || entry.image)} (${entry.fields.map(escapeField).join(', ')})`,
    )
  for (const entry of left.containers)
    todo.push(
      `  recreate or remove container ${escapeField(entry.name || entry.container)} (${entry.fields.map(escapeField).join(', ')})`,
    )
  for (const file of left.files) todo.push(`  clean file ${escapeField(file)}`)
  if (todo.length > 0)
    lines.push('left to clean (the old values are no longer current, but they were exposed):', ...todo)
  return lines.join('\n')
}
