/**
 * Plain aligned columns for human output of lists (secrets, versions, doctor checks). Every cell is
 * escaped for the terminal first: a stored name cannot forge a row or steer the screen.
 */
import { escapeField } from './terminal-text.js'

/** Rows as lines of left-aligned columns separated by two spaces; the header first when given. */
export function formatColumns(rows: string[][], header?: string[]): string {
  const all = (header ? [header, ...rows] : rows).map((row) => row.map(escapeField))
  if (all.length === 0) return ''
  const widths = all[0]!.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)))
  return all
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
