/**
 * Conditional writes on PostgreSQL (issue 20): a server writes a secret whose row it last wrote as ONE
 * conditional statement from its in-memory hint (secret-hints.ts, secret-rows.ts appendOnHint), and
 * falls back to the row lock when the row moved. Attacked with replica A (this process, whose hints the
 * test can see) and replica B (a real server process) on one database, over HTTP: stale hints, 2 x 16
 * concurrent clients, refusals, columns edited in SQL, a live `vault restore`, DELETE/PUT races, names and
 * values at their limits, concurrent creates, a write that fails in the database. Every case checks the
 * exact history (versions API, the value of every version, the secret's createdAt); at the end a fresh
 * server process must start on the database (its start-up checks the row MACs and the audit head) and
 * read every version again, and `vault audit verify` (in process) must find the database intact.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import AuditVerify from '../../src/commands/audit/verify.js'
import Backup from '../../src/commands/backup.js'
import Restore from '../../src/commands/restore.js'
import { runCommand } from '../helpers/run-command.js'
import { createDatabase, postgresOrNull, queryDatabase, unavailableReason } from '../helpers/components.js'
import { spawnVaultProcess, startVaultServer } from '../helpers/vault-server.js'

const postgres = postgresOrNull()
const skipped = `(postgres: ${unavailableReason('postgres')})`
const canary = 'CANARY-conditional-7f3a'
const work = mkdtempSync(join(tmpdir(), 'vault-conditional-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

type Listed = { version: number; deleted: boolean; createdAt: string }
type Answer = {
  status: number
  body: { version?: number; createdAt?: string; value?: string; versions?: Listed[] }
}
/** A secret's expected history: the value of each version, null for a tombstone. */
type History = (string | null)[]

/** The index of the first version of the live run that `listed[index]` belongs to (its createdAt). */
const runStart = (listed: Listed[], index: number) => {
  while (index > 0 && !listed[index - 1]!.deleted) index--
  return index
}

const sql = queryDatabase

/** A (in this process) and B (a process) on `dbUrl`, and the histories the cases expect. */
async function replicas(dbUrl: string) {
  const a = await startVaultServer({ dbUrl })
  const b = await spawnVaultProcess(a)
  const token = await a.token(a.deploymentCredentials)
  const expected = new Map<string, History>()
  const keys = { DB_URL: dbUrl, ENCRYPTION_KEY: a.encryptionKey }
  const send = async (base: string, method: string, name: string, extra: Record<string, string> = {}) => {
    const { value, ...headers } = extra
    const post = method === 'POST'
    const response = await fetch(`${base}/api/v1/secrets${post ? '' : `/${name}`}?environment=dev`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: value === undefined ? undefined : JSON.stringify(post ? { name, value } : { value }),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : {} } as Answer
  }
  const versions = async (name: string, base = a.url) =>
    (await send(base, 'GET', `${name}/versions`)).body.versions!
  /** The value of every version of `name` through `base` (null for a tombstone's 404). */
  const values = (name: string, count: number, base: string) =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const answer = await send(base, 'GET', `${name}/versions/${i + 1}`)
        expect([200, 404]).toContain(answer.status)
        return answer.status === 200 ? answer.body.value! : null
      }),
    )
  /** Asserts the exact history of `name` (versions 1..n, tombstones, values, createdAt) and records it. */
  const expectHistory = async (name: string, history: History, createdAt?: string) => {
    const listed = await versions(name, b.url)
    expect(listed.map((v) => [v.version, v.deleted])).toEqual(history.map((v, i) => [i + 1, v === null]))
    expect(await values(name, history.length, a.url)).toEqual(history)
    const first = listed[runStart(listed, history.length - 1)]!
    const live = history.at(-1) !== null
    if (live) expect((await send(a.url, 'GET', name)).body.createdAt).toBe(createdAt ?? first.createdAt)
    expected.set(name, history)
  }
  const hint = (name: string) =>
    a.running.context.secretHints!.get({ projectId: a.projectId, environment: 'dev' }, name)
  const row = async (name: string) =>
    (await sql(dbUrl, `SELECT * FROM secrets WHERE project_id = $1 AND name = $2`, [a.projectId, name]))[0]!
  /** A fresh process must pass its start-up integrity check and read every recorded version; then audit verify. */
  const expectSound = async () => {
    const fresh = await spawnVaultProcess(a)
    try {
      for (const [name, history] of expected)
        expect(await values(name, history.length, fresh.url)).toEqual(history)
      expect(fresh.log() + b.log()).not.toContain(canary)
    } finally {
      await fresh.stop()
    }
    const verified = await runCommand(AuditVerify, [], { env: keys })
    expect(verified.exitCode, verified.stderr).toBe(0)
    expect(verified.stderr).toMatch(/audit chain intact/)
  }
  const stop = () => b.stop().then(() => a.stop())
  return { a, b, keys, send, versions, expectHistory, hint, row, expectSound, stop }
}

describe.skipIf(!postgres)(`conditional writes on a hinted row, 2 replicas ${skipped}`, () => {
  let r: Awaited<ReturnType<typeof replicas>>
  beforeAll(async () => void (r = await replicas(await createDatabase(postgres!, 'vault_conditional'))))
  afterAll(() => r?.stop())

  it("alternating PATCHes through A and B (A's hint stale every time): versions 1..n, each its own value", async () => {
    const { a, b, send, hint } = r
    const history: History = [`${canary}-1`]
    expect((await send(a.url, 'PUT', 'ALTERNATE', { value: history[0]! })).status).toBe(201)
    for (let i = 2; i <= 13; i++) {
      if (i % 2) expect(hint('ALTERNATE')!.version).toBe(i - 2) // B wrote version i - 1 since
      const answer = await send(i % 2 ? a.url : b.url, 'PATCH', 'ALTERNATE', { value: `${canary}-${i}` })
      expect([answer.status, answer.body.version]).toEqual([200, i])
      history.push(`${canary}-${i}`)
    }
    await r.expectHistory('ALTERNATE', history)
  })

  it('2 replicas x 16 clients PATCHing shared and private names: gap-free, one answer per version, no 5xx', async () => {
    const { a, b, send } = r
    const shared = ['SHARED_0', 'SHARED_1', 'SHARED_2']
    const names = [...shared, ...[0, 1, 2, 3].flatMap((i) => [`PRIVATE_A_${i}`, `PRIVATE_B_${i}`])]
    for (const name of names)
      expect((await send(a.url, 'PUT', name, { value: `${name}-1` })).status).toBe(201)
    const answers: { name: string; value: string; answer: Answer }[] = []
    const until = Date.now() + 2500
    const clients = [a.url, b.url].flatMap((base, replica) =>
      Array.from({ length: 16 }, async (_, client) => {
        for (let i = 0; Date.now() < until && i < 400; i++) {
          const name = i % 3 === 2 ? `PRIVATE_${'AB'[replica]}_${client % 4}` : shared[(client + i) % 3]!
          const value = `${canary}-${replica}-${client}-${i}`
          answers.push({ name, value, answer: await send(base, 'PATCH', name, { value }) })
        }
      }),
    )
    await Promise.all(clients)
    expect(answers.filter(({ answer }) => answer.status !== 200).map(({ answer }) => answer)).toEqual([])
    expect(answers.length).toBeGreaterThan(100)
    for (const name of names) {
      const mine = answers.filter((entry) => entry.name === name)
      const history: History = [`${name}-1`, ...mine.map(() => '')]
      for (const { value, answer } of mine) {
        expect(history[answer.body.version! - 1], `${name} v${answer.body.version} answered twice`).toBe('')
        history[answer.body.version! - 1] = value
      }
      await r.expectHistory(name, history) // max = 1 + answers, so every version was answered once
    }
  })

  it('a stale hint decides no refusal and no success: 404, 409, 412 and 204 follow the row as B left it', async () => {
    const { a, b, send, versions } = r
    const status = async (base: string, method: string, extra: Record<string, string> = {}) =>
      (await send(base, method, 'STALE', extra)).status
    expect(await status(a.url, 'PUT', { value: 'x1' })).toBe(201)
    expect(await status(b.url, 'DELETE')).toBe(204) // A's hint: live at 1
    expect(await status(a.url, 'PATCH', { value: 'resurrected' })).toBe(404)
    const recreated = await send(a.url, 'PUT', 'STALE', { value: 'x3' })
    const listed = await versions('STALE')
    expect([recreated.status, recreated.body.createdAt]).toEqual([201, listed[2]!.createdAt])
    expect(recreated.body.createdAt! > listed[0]!.createdAt).toBe(true)
    expect(await status(a.url, 'PATCH', { value: 'x4' })).toBe(200)
    expect(await status(b.url, 'PATCH', { value: 'x5' })).toBe(200)
    // A's hint is at 4: If-Match "5" must not be refused on it, If-Match "6" after B's 7 must be
    expect(await status(a.url, 'PATCH', { value: 'x6', 'if-match': '"5"' })).toBe(200)
    expect(await status(b.url, 'PATCH', { value: 'x7' })).toBe(200)
    expect(await status(a.url, 'PATCH', { value: 'no', 'if-match': '"6"' })).toBe(412)
    expect(await status(a.url, 'PUT', { value: 'no', 'if-match': '"6"' })).toBe(412)
    expect(await status(a.url, 'DELETE', { 'if-match': '"6"' })).toBe(412)
    expect(await status(a.url, 'DELETE')).toBe(204) // 8; A's hint: a tombstone
    expect(await status(b.url, 'PUT', { value: 'x9' })).toBe(201)
    expect(await status(a.url, 'POST', { value: 'no' })).toBe(409)
    expect(await status(a.url, 'PUT', { value: 'no', 'if-none-match': '*' })).toBe(412)
    expect(await status(a.url, 'DELETE')).toBe(204) // 10, not a 404 on A's tombstone
    expect(await status(a.url, 'PATCH', { value: 'no' })).toBe(404)
    expect(await status(b.url, 'PUT', { value: 'x11' })).toBe(201)
    expect(await status(a.url, 'PATCH', { value: 'x12' })).toBe(200)
    await r.expectHistory('STALE', ['x1', null, 'x3', 'x4', 'x5', 'x6', 'x7', null, 'x9', null, 'x11', 'x12'])
  })

  // Fails when `AND created_at = ?` is removed from appendOnHint (tried: the PATCH then answers and stores
  // A's hinted createdAt), and when `AND version = ?` is (tried: B's write with A's updated_at, as two
  // writes in one millisecond have, makes A append a version that exists: a 500). Removing
  // `AND updated_at = ?` is not observable: while the version matches, nothing the write takes differs.
  it('follows the row, not the hint, when columns the row MAC does not cover were edited in SQL', async () => {
    const { a, b, send, hint, row } = r
    expect((await send(a.url, 'PUT', 'EDITED', { value: 'c1' })).status).toBe(201)
    expect((await send(a.url, 'PATCH', 'EDITED', { value: 'c2' })).status).toBe(200)
    const { id, created_at } = await row('EDITED')
    expect(hint('EDITED')).toMatchObject({ id, version: 2, created_at })
    const edited = '2001-02-03T04:05:06.000Z'
    const edit = (column: string, value: string) =>
      sql(a.dbUrl, `UPDATE secrets SET ${column} = $1 WHERE id = $2`, [value, id])
    for (const [column, value] of Object.entries({ created_at: 'c3', updated_at: 'c4' })) {
      await edit(column, edited)
      const patched = await send(a.url, 'PATCH', 'EDITED', { value })
      expect([patched.status, patched.body.createdAt]).toEqual([200, edited])
      expect((await row('EDITED')).created_at).toBe(edited)
    }
    expect((await send(b.url, 'PATCH', 'EDITED', { value: 'c5' })).body.version).toBe(5)
    await edit('updated_at', hint('EDITED')!.updated_at) // A's hint (version 4) differs in the version only
    const patched = await send(a.url, 'PATCH', 'EDITED', { value: 'c6' })
    expect([patched.status, patched.body.version, patched.body.createdAt]).toEqual([200, 6, edited])
    expect((await send(b.url, 'GET', 'EDITED')).body).toMatchObject({
      value: 'c6',
      version: 6,
      createdAt: edited,
    })
    await r.expectHistory('EDITED', ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'], edited)
  })

  it('DELETE/PUT races on both replicas, on a 256-character name, with values at the size limit', async () => {
    const { a, b, send, versions } = r
    const limit = a.running.context.limits.maxValueBytes
    const big = (tag: string) =>
      tag + 'é'.repeat((limit - tag.length) >> 1) + 'x'.repeat((limit - tag.length) & 1)
    const names = [`R${'ACE_'.repeat(63)}XYZ`, 'RACE_SHORT']
    expect([Buffer.byteLength(big('tag')), names[0]!.length]).toEqual([limit, 256])
    for (const name of names) {
      expect((await send(a.url, 'PUT', name, { value: big(`${name}-1`) })).status).toBe(201)
      expect((await send(a.url, 'PATCH', name, { value: `${big('')}é` })).status).toBe(413)
    }
    const answers: { name: string; method: string; value: string; answer: Answer }[] = []
    const until = Date.now() + 1500
    const clients = [a.url, b.url].flatMap((base, replica) =>
      Array.from({ length: 4 }, async (_, client) => {
        for (let i = 0; Date.now() < until && i < 40; i++) {
          const [name, method] = [names[(client + i) % 2]!, (client + (i >> 1)) % 2 ? 'PUT' : 'DELETE']
          const value = big(`${replica}-${client}-${i}`)
          const answer = await send(base, method, name, method === 'PUT' ? { value } : {})
          answers.push({ name, method, value, answer })
        }
      }),
    )
    await Promise.all(clients)
    for (const name of names) {
      const puts = answers.filter((entry) => entry.name === name && entry.method === 'PUT')
      const deletes = answers.filter((entry) => entry.name === name && entry.method === 'DELETE')
      expect(puts.filter(({ answer }) => ![200, 201].includes(answer.status))).toEqual([])
      expect(deletes.filter(({ answer }) => ![204, 404].includes(answer.status))).toEqual([])
      const listed = await versions(name)
      const history: History = listed.map((v) => (v.deleted ? null : ''))
      history[0] = big(`${name}-1`)
      const deleted = deletes.filter(({ answer }) => answer.status === 204)
      expect(history.filter((value) => value === null)).toHaveLength(deleted.length)
      expect(listed.some((v, i) => v.deleted && listed[i + 1]?.deleted)).toBe(false) // no double delete
      for (const { value, answer } of puts) {
        const at = answer.body.version! - 1
        expect(history[at], `${name} v${at + 1}`).toBe('') // a live version, answered once
        history[at] = value
        expect(answer.status).toBe(listed[at - 1]?.deleted ? 201 : 200)
        expect(answer.body.createdAt).toBe(listed[runStart(listed, at)]!.createdAt)
      }
      await r.expectHistory(name, history)
    }
  })

  // PUT failed before the fix in lockAndAppend: the replica whose lock found no row, and whose insert then
  // met the other's row, answered an upsert with 409 'created concurrently; retry'.
  it('concurrent creates of one new name on A and B: PUT gives 201 and the next version, POST 201 and 409', async () => {
    const { a, b, send } = r
    for (let i = 0; i < 12; i++) {
      const [name, method] = [`NEW_${i}`, i % 3 ? 'PUT' : 'POST']
      const sent = await Promise.all(
        [a.url, b.url].map((base) => send(base, method, name, { value: `${base}-${i}` })),
      )
      expect(sent.map((answer) => answer.status).sort()).toEqual(method === 'PUT' ? [200, 201] : [201, 409])
      const history: History = []
      sent.forEach((answer, server) => {
        if (answer.status < 300) history[answer.body.version! - 1] = `${[a.url, b.url][server]}-${i}`
      })
      await r.expectHistory(name, history)
    }
  })

  // Failed before the fix in appendOnHint (the hint was kept after its statement failed): every write of
  // the poisoned secret ran unguarded and failed its whole batch, and ~85% of the other requests of A got
  // a 500 (BatchAbortedError on every retry); through the locked path (SAVEPOINT) they all got a 200.
  it('a hinted write that fails every time (a trigger raises) fails alone; no other request of A gets a 5xx', async () => {
    const { a, send } = r
    const innocents = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `INNOCENT_${i}`)
    for (const name of ['POISONED', ...innocents])
      expect((await send(a.url, 'PUT', name, { value: `${name}-1` })).status).toBe(201)
    await sql(
      a.dbUrl,
      `CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'x'; END $$;
       CREATE TRIGGER poison BEFORE UPDATE ON secrets FOR EACH ROW WHEN (NEW.name = 'POISONED')
         EXECUTE FUNCTION poison()`,
    )
    const statuses = { poisoned: [] as number[], innocent: [] as number[] }
    const written = new Map(innocents.map((name) => [name, [`${name}-1`]]))
    const until = Date.now() + 1500
    const innocent = innocents.flatMap((name) =>
      [true, false].map(async (writes) => {
        for (let i = 0; Date.now() < until; i++) {
          const value = `${name}-${i}`
          const answer = await send(a.url, writes ? 'PATCH' : 'GET', name, writes ? { value } : {})
          statuses.innocent.push(answer.status)
          if (writes && answer.status === 200) written.get(name)![answer.body.version! - 1] = value
        }
      }),
    )
    const poisoned = [0, 1].map(async () => {
      while (Date.now() < until)
        statuses.poisoned.push((await send(a.url, 'PATCH', 'POISONED', { value: 'p' })).status)
    })
    await Promise.all([...innocent, ...poisoned]).finally(() =>
      sql(a.dbUrl, `DROP TRIGGER poison ON secrets; DROP FUNCTION poison()`),
    )
    expect(new Set(statuses.poisoned)).toEqual(new Set([500]))
    expect(statuses.innocent.filter((status) => status !== 200)).toEqual([])
    written.set('POISONED', ['POISONED-1'])
    for (const [name, history] of written) await r.expectHistory(name, history)
  })

  it('leaves a database a fresh server starts on and reads every version of; audit verify finds it intact', async () => {
    await r.expectSound()
  })
})

describe.skipIf(!postgres)(`a live vault restore while A holds hints ${skipped}`, () => {
  it("the next PATCH through A follows the restored row, whether A's hint is later than it or exactly it", async () => {
    const r = await replicas(await createDatabase(postgres!, 'vault_conditional_restore'))
    try {
      const { a, b, keys, send, hint, row } = r
      for (const name of ['LATER', 'SAME']) {
        expect((await send(a.url, 'PUT', name, { value: `${name}-1` })).status).toBe(201)
        expect((await send(a.url, 'PATCH', name, { value: `${name}-2` })).status).toBe(200)
      }
      const archive = join(work, 'at-version-2.jsonl.gz')
      const backup = await runCommand(Backup, ['--output', archive], { env: keys })
      expect(backup.exitCode, backup.stderr).toBe(0)
      const backedUp = await row('SAME')
      for (const version of [3, 4]) {
        expect((await send(a.url, 'PATCH', 'LATER', { value: `lost-${version}` })).body.version).toBe(version)
        expect((await send(b.url, 'PATCH', 'SAME', { value: `lost-${version}` })).body.version).toBe(version)
      }
      expect(hint('LATER')!.version).toBe(4)
      const { created_at, updated_at } = backedUp
      expect(hint('SAME')).toMatchObject({ version: 2, created_at, updated_at })
      const restore = await runCommand(Restore, [archive], { env: keys })
      expect(restore.exitCode, restore.stderr).toBe(0)
      expect(await row('SAME')).toEqual(backedUp) // exactly the row A's hint describes: the hinted path runs
      for (const name of ['LATER', 'SAME']) {
        const answer = await send(a.url, 'PATCH', name, { value: `${canary}-${name}-3` })
        expect([answer.status, answer.body.version]).toEqual([200, 3])
        await r.expectHistory(name, [`${name}-1`, `${name}-2`, `${canary}-${name}-3`])
      }
      expect(hint('SAME')!.version).toBe(3)
      await r.expectSound()
    } finally {
      await r.stop()
    }
  })
})
