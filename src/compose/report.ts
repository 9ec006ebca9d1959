/**
 * Human text for render's modes: the preflight table, the variables table and the users of a
 * variable. Paths are shown relative to the working directory. Never prints a value.
 */
import { relative } from 'node:path'
import { formatColumns } from '../text/columns.js'
import type { RenderResult } from './render.js'

function place(file: string | undefined, line: number | undefined, cwd: string): string {
  if (file === undefined) return '-'
  const shown = relative(cwd, file) || file
  return line === undefined ? shown : `${shown}:${line}`
}

/** The text render prints on stdout for people (the config text itself for the config mode). */
export function formatRenderReport(result: RenderResult, cwd: string): string {
  switch (result.kind) {
    case 'config':
      return result.text
    case 'check': {
      const rows = result.problems.map((problem) => [
        problem.level,
        problem.variable ?? '-',
        problem.service ?? '-',
        place(problem.file, problem.line, cwd),
        problem.message.replace(/^\S+:\d+: /, ''),
      ])
      const table = rows.length
        ? `${formatColumns(rows, ['LEVEL', 'VARIABLE', 'SERVICE', 'LOCATION', 'MESSAGE'])}\n`
        : ''
      return `${table}${result.errors} error(s), ${result.warnings} warning(s), ${result.infos} info\n`
    }
    case 'variables': {
      const rows = result.variables.map((variable) => [
        variable.name,
        variable.required ? 'true' : 'false',
        variable.defaultValue ?? '',
        variable.alternateValue ?? '',
        variable.source ?? '',
      ])
      return `${formatColumns(rows, ['NAME', 'REQUIRED', 'DEFAULT VALUE', 'ALTERNATE VALUE', 'SOURCE'])}\n`
    }
    case 'who-uses': {
      if (result.references.length === 0) return `no service references ${result.variable}\n`
      const through = result.references.some((site) => site.through !== undefined)
      const rows = result.references.map((site) => [
        site.service || '-',
        site.field,
        place(site.file, site.line, cwd),
        ...(through ? [site.through ?? '-'] : []),
      ])
      const headers = ['SERVICE', 'FIELD', 'LOCATION', ...(through ? ['THROUGH TEMPLATE'] : [])]
      return `${formatColumns(rows, headers)}\n`
    }
  }
}
