/**
 * Writer turns without a SAVEPOINT in PostgreSQL's group commit (pg-batch.ts, pg-transaction.ts): a
 * transaction whose first write is one conditional statement (SqlExecutor.runIf) takes its turn
 * unguarded. Against a real PostgreSQL, through the real driver: writer A takes such a turn, writer B
 * then joins the same batch and waits behind A, and A fails in each way that matters. What must hold:
 * nothing A changed is kept; when A cannot be rolled back alone (it changed rows unguarded, or one of
 * its statements failed unguarded), the batch fails and B's work runs once more and is kept once;
 * when it can (it changed nothing, or it took the SAVEPOINT before its change), only A's turn is
 * undone and B's work runs once. A work that swallows the error of a failed statement and goes on is
 * not committed (PostgreSQL would answer its COMMIT with ROLLBACK) but fails with that error.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SqlDriver, type SqlExecutor } from '../../src/server/store/index.js'
import { openStore } from '../../src/server/migrations.js'
import { createDatabase, postgresOrNull, queryDatabase, unavailableReason } from '../helpers/components.js'

const postgres = postgresOrNull()

describe.skipIf(!postgres)(`unguarded writer turns (postgres: ${unavailableReason('postgres')})`, () => {
  let dbUrl: string
  let driver: SqlDriver

  beforeAll(async () => {
    dbUrl = await createDatabase(postgres!, 'vault_turns')
    driver = await openStore(dbUrl)
    await driver.exclusive('test:scratch', (tx) =>
      tx.run(`CREATE TABLE scratch (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)`),
    )
  })
  afterAll(async () => {
    await driver?.close()
  })

  async function reset() {
    await driver.exclusive('test:scratch', async (tx) => {
      await tx.run(`DELETE FROM scratch`)
      await tx.run(`INSERT INTO scratch (id, value) VALUES (1, 0), (2, 0)`)
    })
  }

  /** The committed values, read outside the vault's driver. */
  async function committed(): Promise<Record<number, number>> {
    const rows = await queryDatabase<{ id: number; value: number }>(dbUrl, `SELECT id, value FROM scratch`)
    return Object.fromEntries(rows.map((row) => [row.id, row.value]))
  }

  /**
   * Runs A's `first` steps, then starts B (which adds 10 to row 2) so that it joins A's batch and
   * waits for A's turn, then lets A finish with `then`. Returns how A ended, how often B's work ran,
   * and the committed rows.
   */
  async function race(first: (tx: SqlExecutor) => Promise<void>, then: (tx: SqlExecutor) => Promise<void>) {
    await reset()
    let bRuns = 0
    let started!: () => void
    const aInTurn = new Promise<void>((resolve) => (started = resolve))
    let aAttempts = 0
    const a = driver
      .transaction(async (tx) => {
        aAttempts++
        if (aAttempts > 1) return
        await first(tx)
        started()
        await sleep(150)
        await then(tx)
      })
      .then(
        () => 'committed',
        (error: Error) => error.message,
      )
    await aInTurn
    const b = driver.transaction(async (tx) => {
      bRuns++
      await tx.run(`UPDATE scratch SET value = value + 10 WHERE id = 2`)
    })
    const aEnded = await a
    await b
    return { aEnded, aAttempts, bRuns, rows: await committed() }
  }

  const fail = () => Promise.reject(new Error('A failed'))
  const nothing = async () => undefined
  const changeRow1 = (tx: SqlExecutor) =>
    tx.runIf!(`UPDATE scratch SET value = 1 WHERE id = 1 AND value = 0`, []).then((n) => expect(n).toBe(1))
  const changeNothing = (tx: SqlExecutor) =>
    tx.runIf!(`UPDATE scratch SET value = 1 WHERE id = 1 AND value = 99`, []).then((n) => expect(n).toBe(0))
  const failUnswallowed = (tx: SqlExecutor, run: 'run' | 'runIf') =>
    expect(tx[run]!(`UPDATE scratch SET value = 1 / 0 WHERE id = 1`, [])).rejects.toThrow(/division by zero/)
  /** Every way A can end, with how A ends, how often A's and B's works ran, and the rows kept. */
  const cases: {
    name: string
    first: (tx: SqlExecutor) => Promise<void>
    then: (tx: SqlExecutor) => Promise<void>
    expected: { aEnded: string; aAttempts: number; bRuns: number; rows: Record<number, number> }
  }[] = [
    {
      name: 'a conditional change, then a failure: the batch fails, B runs again and is kept once',
      first: changeRow1,
      then: fail,
      expected: { aEnded: 'A failed', aAttempts: 1, bRuns: 2, rows: { 1: 0, 2: 10 } },
    },
    {
      name: 'a conditional statement that changed nothing, then a failure: only A ends, B runs once',
      first: changeNothing,
      then: fail,
      expected: { aEnded: 'A failed', aAttempts: 1, bRuns: 1, rows: { 1: 0, 2: 10 } },
    },
    {
      name: 'no change, then a change (the SAVEPOINT is taken first), then a failure: only A is undone',
      first: async (tx) => {
        await changeNothing(tx)
        expect(await tx.run(`UPDATE scratch SET value = 5 WHERE id = 1`)).toBe(1)
      },
      then: async (tx) => {
        expect(await tx.all(`SELECT value FROM scratch WHERE id = 1`)).toEqual([{ value: 5 }])
        await fail()
      },
      expected: { aEnded: 'A failed', aAttempts: 1, bRuns: 1, rows: { 1: 0, 2: 10 } },
    },
    {
      name: 'a change after a conditional change stays unguarded: a failure fails the batch',
      first: async (tx) => {
        await changeRow1(tx)
        expect(await tx.run(`UPDATE scratch SET value = value + 1 WHERE id = 1`)).toBe(1)
      },
      then: fail,
      expected: { aEnded: 'A failed', aAttempts: 1, bRuns: 2, rows: { 1: 0, 2: 10 } },
    },
    {
      name: 'an unguarded statement that fails, its error swallowed: nothing of the batch is committed on top of it',
      first: (tx) => failUnswallowed(tx, 'runIf'),
      then: nothing,
      expected: { aEnded: 'division by zero', aAttempts: 1, bRuns: 2, rows: { 1: 0, 2: 10 } },
    },
    {
      name: 'a guarded statement that fails, its error swallowed: A ends with that error, B runs once',
      first: (tx) => failUnswallowed(tx, 'run'),
      then: nothing,
      expected: { aEnded: 'division by zero', aAttempts: 1, bRuns: 1, rows: { 1: 0, 2: 10 } },
    },
    {
      name: 'a conditional change inside a guarded turn (a lock came first): a failure undoes only A',
      first: async (tx) => {
        await tx.lockRows(`SELECT id FROM scratch WHERE id = 1`)
        await changeRow1(tx)
      },
      then: fail,
      expected: { aEnded: 'A failed', aAttempts: 1, bRuns: 1, rows: { 1: 0, 2: 10 } },
    },
    {
      name: 'a conditional change that succeeds is committed with the batch',
      first: (tx) =>
        tx.runIf!(`UPDATE scratch SET value = 7 WHERE id = 1 AND value = 0`, []).then((n) =>
          expect(n).toBe(1),
        ),
      then: nothing,
      expected: { aEnded: 'committed', aAttempts: 1, bRuns: 1, rows: { 1: 7, 2: 10 } },
    },
  ]

  it.each(cases)('$name', async ({ first, then, expected }) => {
    expect(await race(first, then)).toEqual(expected)
  })
})
