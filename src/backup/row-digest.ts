/**
 * An order-independent digest of a table's rows: the count and the lane-wise sum (four 32-bit lanes,
 * each modulo 2^32) of each canonical row's SHA-256, computed while an archive streams into a
 * database and again while the database is read back in pages, so the two are compared without
 * holding a table in memory. It guards against an engine storing something other than what it was
 * given (the archive's authenticity is the MAC's job), and allocates little per row.
 */
import { hash } from 'node:crypto'
import type { SqlRow } from '../server/store/index.js'
import { canonicalRow } from './manifest.js'

/** The running digest of one table's rows. */
export class TableDigest {
  rows = 0
  private readonly lanes = new Uint32Array(4)

  /** Adds one row (in any column order; engines' bigints count as numbers). */
  add(row: SqlRow): void {
    const digest = hash('sha256', JSON.stringify(canonicalRow(row)), 'buffer')
    for (let lane = 0; lane < 4; lane++) this.lanes[lane] = this.lanes[lane]! + digest.readUInt32LE(lane * 4)
    this.rows++
  }

  /** Whether both digests saw the same multiset of rows. */
  equals(other: TableDigest): boolean {
    return this.rows === other.rows && this.lanes.every((value, lane) => value === other.lanes[lane])
  }
}
