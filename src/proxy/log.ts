/**
 * The proxy's log: syslog-style levels (7 debug, 6 info, 4 warning, 3 error), one line per event as
 * `key=value` pairs (or JSON with --log-format json) on stderr. Values are escaped so that a path
 * carrying a newline or a quote cannot forge a line.
 */

const logLevels = { error: 3, warning: 4, info: 6, debug: 7 } as const
export type LogLevelName = keyof typeof logLevels
export type LogFormat = 'text' | 'json'
export type LogFields = Record<string, string | number | boolean | undefined>

/** A logger: `log(level, message, fields)` writes when `level` is at or below the configured one. */
export interface ProxyLogger {
  enabled(level: LogLevelName): boolean
  log(level: LogLevelName, message: string, fields?: LogFields): void
}

// eslint-disable-next-line no-control-regex
const needsQuoting = /[\s"\\=\u0000-\u001f\u007f-\u009f]|^$/
// eslint-disable-next-line no-control-regex
const escapable = /[\u0000-\u001f\u007f-\u009f\u2028\u2029"\\]/g

/** Escapes a value for a `key=value` line: quoted when needed, control characters as \n, \xNN, \uNNNN. */
export function formatLogValue(value: string | number | boolean): string {
  const text = String(value)
  if (!needsQuoting.test(text)) return text
  return `"${text.replace(escapable, (char) => {
    if (char === '"' || char === '\\') return `\\${char}`
    if (char === '\n') return '\\n'
    if (char === '\r') return '\\r'
    if (char === '\t') return '\\t'
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
  })}"`
}

/** One event to log: its level, message, fields and time. */
export interface LogEntry {
  level: LogLevelName
  message: string
  fields: LogFields
  time: Date
}

/** Formats one log line (without the newline). */
export function formatLogLine(format: LogFormat, entry: LogEntry): string {
  const { level, message, fields, time } = entry
  if (format === 'json') {
    return JSON.stringify({ time: time.toISOString(), level, msg: message, ...fields }).replace(
      /[\u2028\u2029]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16)}`,
    )
  }
  let line = `time=${time.toISOString()} level=${level} msg=${formatLogValue(message)}`
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) line += ` ${key}=${formatLogValue(value)}`
  }
  return line
}

/** Builds a logger writing to `write` (stderr by default) at `level` (0-7) in `format`. */
export function createLogger(
  level: number,
  format: LogFormat,
  write: (line: string) => void = (line) => process.stderr.write(line),
): ProxyLogger {
  return {
    enabled: (name) => logLevels[name] <= level,
    log(name, message, fields = {}) {
      if (logLevels[name] > level) return
      write(`${formatLogLine(format, { level: name, message, fields, time: new Date() })}\n`)
    },
  }
}
