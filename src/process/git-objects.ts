/**
 * Git's objects as streams, for `vault scan`: the blobs each reachable commit introduced at each path
 * (`git rev-list --all` then `git diff-tree --stdin -r -m --root`: every ref, deleted files included,
 * merges against each parent), the blobs of the index (`git ls-files -s`), and the bytes of many blobs
 * through one `git cat-file --batch`, handed over chunk by chunk so no blob is held whole. Paths come
 * NUL-separated (-z) so no name is ever parsed as anything but a name. The repository's own config
 * cannot start programs here: these plumbing commands run no diff driver, pager or hook, and
 * core.fsmonitor is turned off.
 */
import type { Readable } from 'node:stream'
import { NotFoundError, UsageError } from '../errors.js'

/** One blob at one path: introduced by `commit`, or in the index when `commit` is undefined. */
export interface GitBlobEntry {
  commit?: string
  path: string
  blob: string
}

/** Receives the bytes of each blob, in the order asked. */
export interface BlobVisitor {
  start(blob: string, size: number): void
  chunk(bytes: Buffer): void
  end(): void
}

const safeConfig = ['-c', 'core.fsmonitor=false', '-c', 'core.quotePath=false']

async function git(dir: string, args: string[], input?: string): Promise<Buffer> {
  const { execa } = await import('execa')
  const result = await execa('git', [...safeConfig, '-C', dir, ...args], {
    reject: false,
    input,
    stdin: input === undefined ? 'ignore' : 'pipe',
    encoding: 'buffer',
    maxBuffer: 1 << 30,
  })
  if ((result as { code?: string }).code === 'ENOENT')
    throw new NotFoundError('git is not installed', { hint: 'install git, or scan files with --path' })
  if (result.exitCode !== 0) {
    const message = Buffer.from(result.stderr as Uint8Array)
      .toString('utf8')
      .trim()
      .split('\n')[0]
    throw new UsageError(`git ${args[0]} failed in ${dir}: ${message}`, {
      hint: 'pass a git work tree or repository',
    })
  }
  return Buffer.from(result.stdout as Uint8Array)
}

/** Every blob each reachable commit (all refs) introduced at a path, oldest commits first. */
export async function historyBlobs(dir: string): Promise<GitBlobEntry[]> {
  const commits = (await git(dir, ['rev-list', '--all', '--reverse', '--topo-order'])).toString('latin1')
  if (commits.trim() === '') return []
  const raw = await git(
    dir,
    ['diff-tree', '--stdin', '-r', '-m', '--root', '--no-renames', '--no-abbrev', '-z'],
    commits,
  )
  return parseDiffTree(raw)
}

/** Parses `diff-tree --stdin -z` (raw) output: commit header tokens, then `:meta` + path pairs. */
export function parseDiffTree(raw: Buffer): GitBlobEntry[] {
  const tokens = raw.toString('utf8').split('\0')
  const entries: GitBlobEntry[] = []
  let commit: string | undefined
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!
    if (token.startsWith(':')) {
      const path = tokens[++index] ?? ''
      const [, mode, , blob, status] = token.slice(1).split(' ')
      if (!commit || status === 'D' || mode === '160000' || !blob || /^0+$/.test(blob)) continue
      entries.push({ commit, path, blob })
    } else if (/^[0-9a-f]{40,64}/.test(token.trim())) commit = /^[0-9a-f]{40,64}/.exec(token.trim())![0]
  }
  return entries
}

/** The blobs of the index (what the next commit would hold), for a pre-commit check. */
export async function indexBlobs(dir: string): Promise<GitBlobEntry[]> {
  const raw = (await git(dir, ['ls-files', '-s', '-z'])).toString('utf8')
  return raw
    .split('\0')
    .filter(Boolean)
    .flatMap((line) => {
      const tab = line.indexOf('\t')
      const [mode, blob] = line.slice(0, tab).split(' ')
      return mode === '160000' || !blob ? [] : [{ path: line.slice(tab + 1), blob }]
    })
}

/** Streams the bytes of `blobs` through one `git cat-file --batch`, in order. */
export async function readBlobs(dir: string, blobs: readonly string[], visitor: BlobVisitor): Promise<void> {
  if (blobs.length === 0) return
  const { execa } = await import('execa')
  const child = execa('git', [...safeConfig, '-C', dir, 'cat-file', '--batch'], {
    input: blobs.join('\n') + '\n',
    encoding: 'buffer',
    buffer: false,
    reject: false,
    stderr: 'ignore',
  })
  const parser = new BatchParser(visitor)
  for await (const chunk of child.stdout as Readable) parser.push(chunk as Buffer)
  const result = await child
  if (result.exitCode !== 0 || !parser.done(blobs.length))
    throw new UsageError(`git cat-file failed in ${dir}`, { hint: 'is it a git repository?' })
}

/** A parser of `cat-file --batch` output: `<oid> <type> <size>\n<bytes>\n`, or `<oid> missing\n`. */
export class BatchParser {
  private header: Buffer[] = []
  private remaining = -1
  private objects = 0

  constructor(private readonly visitor: BlobVisitor) {}

  push(chunk: Buffer): void {
    let at = 0
    while (at < chunk.length) {
      if (this.remaining >= 0) {
        const take = Math.min(this.remaining, chunk.length - at)
        if (take > 0) this.visitor.chunk(chunk.subarray(at, at + take))
        at += take
        this.remaining -= take
        if (this.remaining === 0 && at < chunk.length) {
          at++
          this.remaining = -1
          this.visitor.end()
        }
        continue
      }
      const newline = chunk.indexOf(10, at)
      if (newline === -1) {
        this.header.push(chunk.subarray(at))
        return
      }
      this.header.push(chunk.subarray(at, newline))
      at = newline + 1
      const [oid, type, size] = Buffer.concat(this.header).toString('latin1').split(' ')
      this.header = []
      this.objects++
      if (type === 'missing' || size === undefined) continue
      this.remaining = Number(size)
      this.visitor.start(oid!, this.remaining)
      if (this.remaining === 0 && at < chunk.length) {
        at++
        this.remaining = -1
        this.visitor.end()
      }
    }
  }

  done(expected: number): boolean {
    return this.objects === expected && this.remaining <= 0
  }
}
