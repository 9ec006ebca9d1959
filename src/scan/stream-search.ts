/**
 * Searching one input for the pattern set: a stream of chunks (a file, a blob, a log) or one short
 * text (an image's history line, a label). The result is the first line of each pattern found.
 */
import { ChunkSearch, searchBuffer, type Matcher } from './matcher.js'

/** Pattern index -> first line (1-based) it occurs on. */
export type FirstLines = Map<number, number>

/** A push-based search of one input: `push` its chunks, then `end()` gives what was found. */
export function startSearch(matcher: Matcher): { push(chunk: Uint8Array): void; end(): FirstLines } {
  const found: FirstLines = new Map()
  const search = new ChunkSearch(matcher, (pattern, _offset, line) => {
    if (!found.has(pattern)) found.set(pattern, line)
  })
  return {
    push: (chunk) => search.push(chunk),
    end: () => {
      search.end()
      return found
    },
  }
}

/** Searches a stream of chunks. */
export async function searchStream(matcher: Matcher, chunks: AsyncIterable<Uint8Array>): Promise<FirstLines> {
  const search = startSearch(matcher)
  for await (const chunk of chunks) search.push(chunk)
  return search.end()
}

/** Searches one text held in memory (a field of an engine object). */
export function searchText(matcher: Matcher, text: string): FirstLines {
  const found: FirstLines = new Map()
  if (matcher.patterns.length === 0) return found
  const buffer = Buffer.from(text, 'utf8')
  searchBuffer(matcher, buffer, { from: 0, until: buffer.length, base: 0 }, (pattern, offset) => {
    if (found.has(pattern)) return
    let line = 1
    for (let at = buffer.indexOf(10); at !== -1 && at < offset; at = buffer.indexOf(10, at + 1)) line++
    found.set(pattern, line)
  })
  return found
}
