/**
 * Who may read a compose v1 secret file: `mode`, `uid` and `gid` of a long-syntax secret reference, read
 * from the user's compose file. PyYAML (what docker-compose 1.x reads compose files with) is the oracle
 * of what a plain number means: `0440` octal, `440` decimal. Anything that is not a permission mode up
 * to 0777 or a numeric id is refused before a file is written.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDocument, type YAMLMap } from 'yaml'
import { ComposeInputError } from '../../../src/compose/errors.js'
import { NotConfiguredError } from '../../../src/errors.js'
import {
  accessOf,
  applyOwner,
  defaultSecretMode,
  variantName,
} from '../../../src/process/compose-secret-access.js'

function reference(yaml: string): YAMLMap {
  return parseDocument(yaml).contents as YAMLMap
}

function access(yaml: string) {
  try {
    return accessOf(reference(yaml), 'compose.yaml', 'web', 'db_password')
  } catch (error) {
    expect(error).toBeInstanceOf(ComposeInputError)
    return (error as Error).message
  }
}

/** What PyYAML reads for each plain scalar. */
function pyyaml(texts: string[]): unknown[] {
  const script =
    'import json, sys, yaml\nprint(json.dumps([yaml.safe_load("v: " + t)["v"] for t in json.load(sys.stdin)]))'
  return JSON.parse(
    execFileSync('python3', ['-c', script], { input: JSON.stringify(texts), encoding: 'utf8' }),
  ) as unknown[]
}

describe('accessOf', () => {
  it('reads a plain mode as PyYAML reads the number, refusing more than 0777', () => {
    const texts = [
      '0440',
      '0400',
      '0777',
      '0',
      '00',
      '440',
      '292',
      '511',
      '512',
      '0o440',
      '01000',
      '0644',
      '7',
    ]
    const numbers = pyyaml(texts)
    for (const [index, text] of texts.entries()) {
      const expected = numbers[index]
      const got = access(`source: db_password\nmode: ${text}`)
      if (typeof expected === 'number')
        expect(got, text).toEqual(
          expected <= 0o777 ? { mode: expected } : expect.stringMatching(/mode must be/),
        )
      else expect(got, text).toEqual({ mode: 0o440 }) // 0o440: compose v2's octal, a string to PyYAML
    }
  })

  it('reads a quoted mode as octal', () => {
    expect(access('mode: "0440"')).toEqual({ mode: 0o440 })
    expect(access("mode: '644'")).toEqual({ mode: 0o644 })
  })

  it.each(['-1', '0x1ff', '1e2', '04777', '"0888"', 'u+r', '[1]', '~', '""'])('refuses mode %s', (text) => {
    expect(access(`mode: ${text}`)).toMatch(
      /^.*service web: secret db_password: mode must be an octal mode up to 0777/,
    )
  })

  it('reads numeric ids and refuses names, signs and ids past 2^31-1', () => {
    expect(access('uid: 1000\ngid: "0"')).toEqual({ mode: defaultSecretMode, uid: 1000, gid: 0 })
    expect(access('uid: 2147483647')).toEqual({ mode: 0o444, uid: 2147483647 })
    for (const text of ['2147483648', 'root', '-1', '1.5', '99999999999', '"1000 "'])
      expect(access(`uid: ${text}`)).toMatch(/uid must be a numeric user id/)
    expect(access('gid: www-data')).toMatch(/gid must be a numeric group id/)
  })

  it('gives the default, readable by every user of the container, when nothing is asked', () => {
    expect(access('source: db_password\ntarget: /run/secrets/db')).toEqual({ mode: 0o444 })
  })
})

describe('variantName', () => {
  it('keeps the source name for the default access and names every other one apart', () => {
    expect(variantName('db', { mode: 0o444 })).toBe('db')
    expect(variantName('db', { mode: 0o440, uid: 1000 })).toBe('db.vault-u1000-gx-m0440')
    expect(variantName('db', { mode: 0o444, gid: 0 })).toBe('db.vault-ux-g0-m0444')
    expect(variantName('db', { mode: 0o4 })).toBe('db.vault-ux-gx-m0004')
  })
})

describe('applyOwner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'secret-access-'))
  const file = join(dir, 'secret')
  writeFileSync(file, 'x')

  it('leaves the owner alone without uid and gid', async () => {
    const before = statSync(file)
    await applyOwner(file, { mode: 0o444 }, 'db')
    expect(statSync(file).uid).toBe(before.uid)
  })

  it.runIf(process.getuid?.() === 0)('gives the file to uid and gid (run as root)', async () => {
    await applyOwner(file, { mode: 0o444, uid: 1234, gid: 5678 }, 'db')
    expect(statSync(file)).toMatchObject({ uid: 1234, gid: 5678 })
  })

  it('names the secret, not the value, when the file cannot be given away', async () => {
    await expect(applyOwner(join(dir, 'missing'), { mode: 0o444, uid: 1 }, 'db')).rejects.toThrow(
      NotConfiguredError,
    )
    await expect(applyOwner(join(dir, 'missing'), { mode: 0o444, uid: 1 }, 'db')).rejects.toThrow(
      /compose secret db to uid 1 gid - \(ENOENT\)/,
    )
    rmSync(dir, { recursive: true, force: true })
  })
})
