/**
 * The row of each secret as this process last wrote it: a hint that lets the next write of the secret
 * run as one conditional statement (secret-rows.ts's appendOnHint) instead of a row lock and then a
 * write. A hint is never trusted: that statement changes the row only while every column the write
 * relies on still holds, and a write whose hint no longer holds (another replica or process wrote, a
 * restore, a batch that failed) takes the locked path. Bounded: the oldest hints are dropped first.
 */
import type { SecretRow } from './secret-rows.js'

/** Where a secret lives. */
export interface SecretAddress {
  projectId: string
  environment: string
}

export class SecretHints {
  private readonly rows = new Map<string, Readonly<SecretRow>>()

  constructor(private readonly capacity = 10_000) {}

  get(at: SecretAddress, name: string): Readonly<SecretRow> | undefined {
    return this.rows.get(keyOf(at, name))
  }

  /** Remembers `row` as the secret's current row (in place of any older hint). */
  set(at: SecretAddress, row: SecretRow): void {
    const key = keyOf(at, row.name)
    this.rows.delete(key)
    this.rows.set(key, Object.freeze({ ...row }))
    if (this.rows.size > this.capacity) this.rows.delete(this.rows.keys().next().value!)
  }

  forget(at: SecretAddress, name: string): void {
    this.rows.delete(keyOf(at, name))
  }

  get size(): number {
    return this.rows.size
  }
}

function keyOf(at: SecretAddress, name: string): string {
  return JSON.stringify([at.projectId, at.environment, name])
}
