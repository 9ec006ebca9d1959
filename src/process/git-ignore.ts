/**
 * Questions asked of git about files: whether a file is ignored (`git check-ignore`). Never fails:
 * no git, or a file outside a repository, is an answer of its own.
 */
import { basename, dirname } from 'node:path'

/** Whether git would leave `path` out of a commit. */
export type GitIgnoreStatus = 'ignored' | 'not-ignored' | 'not-in-repository' | 'git-missing'

/** Asks `git check-ignore` about `path`. */
export async function gitIgnoreStatus(path: string): Promise<GitIgnoreStatus> {
  const { execa } = await import('execa')
  const result = await execa('git', ['check-ignore', '-q', '--', basename(path)], {
    cwd: dirname(path),
    reject: false,
    stdin: 'ignore',
    timeout: 10_000,
  })
  if ((result as { code?: string }).code === 'ENOENT') return 'git-missing'
  if (result.exitCode === 0) return 'ignored'
  if (result.exitCode === 1) return 'not-ignored'
  return 'not-in-repository'
}
