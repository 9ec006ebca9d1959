/**
 * Whether git would leave a file out of a commit, asked of the real `git` in a scratch repository; file
 * names that look like options or hold spaces and newlines are names, not arguments.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitIgnoreStatus } from '../../../src/process/git-ignore.js'

const root = mkdtempSync(join(tmpdir(), 'git-ignore-'))
const repo = join(root, 'repo')
afterAll(() => rmSync(root, { recursive: true, force: true }))

beforeAll(() => {
  mkdirSync(join(repo, 'sub'), { recursive: true })
  execFileSync('git', ['init', '-q', repo], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } })
  writeFileSync(join(repo, '.gitignore'), '.env\n-n\n*.secret\nsub/ignored dir/\n')
  for (const name of ['.env', 'compose.yaml', '-n', '--version', 'a b\nc.secret'])
    writeFileSync(join(repo, name), 'x')
})

describe('gitIgnoreStatus', () => {
  it.each([
    ['.env', 'ignored'],
    ['compose.yaml', 'not-ignored'],
    ['-n', 'ignored'],
    ['--version', 'not-ignored'],
    ['a b\nc.secret', 'ignored'],
    ['sub/x.secret', 'ignored'],
    ['sub/plain', 'not-ignored'],
  ])('says %j is %s', async (name, status) => {
    expect(await gitIgnoreStatus(join(repo, name))).toBe(status)
  })

  it('says when the file is outside any repository', async () => {
    const outside = mkdtempSync(join(root, 'outside-'))
    expect(await gitIgnoreStatus(join(outside, '.env'))).toBe('not-in-repository')
  })

  it('says when there is no git', async () => {
    const path = process.env.PATH
    process.env.PATH = join(root, 'empty-path')
    try {
      expect(await gitIgnoreStatus(join(repo, '.env'))).toBe('git-missing')
    } finally {
      process.env.PATH = path
    }
  })
})
