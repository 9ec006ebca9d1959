/**
 * The sources of `vault scan` on this machine: files under a directory (regular files only; links,
 * FIFOs, devices and .git directories are not entered, so a planted link or pipe can neither lead the
 * scan elsewhere nor block it), standard input, a git history (every blob every reachable commit
 * introduced, reported at the oldest commit per path) and git's index. Every input is streamed.
 */
import { createReadStream } from 'node:fs'
import { lstat, opendir } from 'node:fs/promises'
import { join } from 'node:path'
import { historyBlobs, indexBlobs, readBlobs, type GitBlobEntry } from '../process/git-objects.js'
import type { FindingCollector } from './findings.js'
import type { Matcher } from './matcher.js'
import { searchStream, startSearch, type FirstLines } from './stream-search.js'

export interface SourceContext {
  matcher: Matcher
  collector: FindingCollector
  note: (line: string) => void
}

const chunkSize = 1 << 20

/** Scans every regular file under `root` (or `root` itself when it is a file). */
export async function scanPath(root: string, context: SourceContext): Promise<void> {
  for await (const path of regularFiles(root, context.note)) {
    let found: FirstLines
    try {
      found = await searchStream(context.matcher, createReadStream(path, { highWaterMark: chunkSize }))
    } catch (error) {
      context.note(`Warning: could not read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`)
      continue
    }
    for (const [pattern, line] of found) context.collector.add(pattern, { source: 'path', path, line })
  }
}

async function* regularFiles(root: string, note: (line: string) => void): AsyncGenerator<string> {
  const stat = await lstat(root)
  if (stat.isFile()) {
    yield root
    return
  }
  if (!stat.isDirectory()) return
  const pending = [root]
  while (pending.length > 0) {
    const directory = pending.pop()!
    let entries
    try {
      entries = await opendir(directory)
    } catch (error) {
      note(`Warning: could not read ${directory}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`)
      continue
    }
    const names: Array<{ name: string; directory: boolean }> = []
    for await (const entry of entries)
      if (entry.isFile() || (entry.isDirectory() && entry.name !== '.git'))
        names.push({ name: entry.name, directory: entry.isDirectory() })
    names.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
    for (const entry of names) {
      const path = join(directory, entry.name)
      if (entry.directory) pending.push(path)
    }
    for (const entry of names.toReversed()) if (!entry.directory) yield join(directory, entry.name)
  }
}

/** Scans standard input (a log piped in). */
export async function scanStdin(input: AsyncIterable<Uint8Array>, context: SourceContext): Promise<void> {
  for (const [pattern, line] of await searchStream(context.matcher, input))
    context.collector.add(pattern, { source: 'stdin', line })
}

/** Scans every blob of every reachable commit; a value is reported at the first commit per path. */
export async function scanGitHistory(dir: string, context: SourceContext): Promise<{ commits: number }> {
  const entries = await historyBlobs(dir)
  const hits = await searchBlobs(dir, entries, context.matcher)
  for (const entry of entries)
    for (const [pattern, line] of hits.get(entry.blob) ?? [])
      context.collector.add(pattern, { source: 'git', commit: entry.commit!, path: entry.path, line })
  return { commits: new Set(entries.map((entry) => entry.commit)).size }
}

/** Scans the blobs of git's index (what `git commit` would record). */
export async function scanGitIndex(dir: string, context: SourceContext): Promise<void> {
  const entries = await indexBlobs(dir)
  const hits = await searchBlobs(dir, entries, context.matcher)
  for (const entry of entries)
    for (const [pattern, line] of hits.get(entry.blob) ?? [])
      context.collector.add(pattern, { source: 'staged', path: entry.path, line })
}

/** Searches each distinct blob once, through one `git cat-file --batch`. */
async function searchBlobs(
  dir: string,
  entries: readonly GitBlobEntry[],
  matcher: Matcher,
): Promise<Map<string, FirstLines>> {
  const blobs = [...new Set(entries.map((entry) => entry.blob))]
  const hits = new Map<string, FirstLines>()
  let current: { blob: string; search: ReturnType<typeof startSearch> } | undefined
  await readBlobs(dir, blobs, {
    start: (blob) => (current = { blob, search: startSearch(matcher) }),
    chunk: (bytes) => current!.search.push(bytes),
    end: () => {
      const found = current!.search.end()
      if (found.size > 0) hits.set(current!.blob, found)
    },
  })
  return hits
}
