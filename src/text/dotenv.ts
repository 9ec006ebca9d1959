/**
 * The dotenv encoding of `vault export`: one `KEY=<quoted value>` per secret, quoted so that a POSIX
 * shell (`set -a; . ./file`), compose's env-file reader and, where its rules allow, docker-compose v1's
 * reader (python-dotenv) all read back the exact value. Values no quoting can carry for every reader
 * are reported as caveats by reader name, never by value.
 */

/** A reader of env files whose result is checked. */
export type EnvFileReader = 'sh' | 'compose' | 'docker-compose-v1'

export interface DotenvLine {
  text: string
  /** Readers that would not read this value back unchanged. */
  unreadableBy: EnvFileReader[]
}

type Quoting = 'single' | 'double'

/** Encodes one secret as a dotenv line, picking the quoting that the most readers agree on. */
export function encodeDotenvLine(name: string, value: string): DotenvLine {
  const candidates: Quoting[] = ['single', 'double']
  const scored = candidates.map((quoting) => ({ quoting, unreadableBy: unreadableBy(quoting, value) }))
  const best = scored.reduce((a, b) => (rank(b.unreadableBy) < rank(a.unreadableBy) ? b : a))
  const quoted = best.quoting === 'single' ? `'${value}'` : doubleQuote(value)
  return { text: `${name}=${quoted}`, unreadableBy: best.unreadableBy }
}

/** A whole dotenv document, one line per secret, in the given order. */
export function formatDotenv(secrets: Record<string, string>): {
  text: string
  caveats: Record<string, EnvFileReader[]>
} {
  const lines: string[] = []
  const caveats: Record<string, EnvFileReader[]> = {}
  for (const [name, value] of Object.entries(secrets)) {
    const line = encodeDotenvLine(name, value)
    lines.push(line.text)
    if (line.unreadableBy.length > 0) caveats[name] = line.unreadableBy
  }
  return { text: lines.length === 0 ? '' : `${lines.join('\n')}\n`, caveats }
}

function doubleQuote(value: string): string {
  return `"${value.replace(/[\\"$`]/g, (char) => `\\${char}`)}"`
}

function rank(unreadable: EnvFileReader[]): number {
  const weights: Record<EnvFileReader, number> = { sh: 4, compose: 4, 'docker-compose-v1': 1 }
  return unreadable.reduce((sum, reader) => sum + weights[reader], 0)
}

function unreadableBy(quoting: Quoting, value: string): EnvFileReader[] {
  const readers: EnvFileReader[] = []
  const hasCarriageReturn = value.includes('\r')
  if (quoting === 'single') {
    const hasQuote = value.includes("'")
    if (hasQuote) readers.push('sh')
    // compose's reader takes `\'` inside single quotes for an escaped quote: a trailing `\` never closes.
    if (hasQuote || hasCarriageReturn || value.endsWith('\\')) readers.push('compose')
    if (hasQuote || /\\\\|\\$/.test(value) || value.includes('${') || hasCarriageReturn)
      readers.push('docker-compose-v1')
    return readers
  }
  const hasBacktick = value.includes('`')
  if (hasBacktick || hasCarriageReturn) readers.push('compose')
  if (hasBacktick || value.includes('$') || value.endsWith('\\') || hasCarriageReturn)
    readers.push('docker-compose-v1')
  return readers
}
