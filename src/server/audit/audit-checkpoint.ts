/**
 * Audit checkpoints: a signed copy of the log's head (event count and last hash, MAC'd under a key
 * derived from the audit key) that an operator keeps elsewhere. Checking the log against one catches
 * what no check inside the database can: a tail cut back to an older head whose MAC an attacker had
 * saved, or a log rebuilt from an old backup.
 */
import { timingSafeEqual } from 'node:crypto'
import { deriveKey } from '../../crypto/envelope.js'
import { IntegrityError, UsageError } from '../../errors.js'
import { verifyAuditChain, type AuditVerification } from './audit-verify.js'
import { hmacSha256 } from '../keys/hmac.js'
import type { SqlDriver } from '../store/index.js'

export interface AuditCheckpoint {
  /** Events in the log when the checkpoint was taken. */
  events: number
  /** The hash of the last of them. */
  hash: string
  /** When it was taken (ISO 8601). */
  at: string
  /** The whole signed line, as printed and as `--against` reads it back. */
  checkpoint: string
}

export interface CheckpointVerification extends AuditVerification {
  /** The checkpoint the log was checked against. */
  against: { events: number; at: string }
}

const linePattern =
  /vault-audit-checkpoint v1 events=(\d+) hash=([0-9a-f]{64}) at=(\d{4}-\d\d-\d\dT[0-9:.]+Z) mac=([0-9a-f]{64})/

function checkpointMac(auditKey: Buffer, events: number, hash: string, at: string): string {
  return hmacSha256(deriveKey(auditKey, 'audit-checkpoint'))
    .update(`vault-audit-checkpoint-v1\0${events}\0${hash}\0${at}`)
    .digest('hex')
}

/** Verifies the whole chain, then signs its head; a broken log is refused, never signed. */
export async function takeCheckpoint(
  driver: SqlDriver,
  auditKey: Buffer,
  now = new Date(),
): Promise<AuditCheckpoint> {
  const verified = await verifyAuditChain(driver, auditKey)
  if (!verified.ok) throw brokenChain(verified)
  const at = now.toISOString()
  const hash = verified.head!
  const mac = checkpointMac(auditKey, verified.events, hash, at)
  const checkpoint = `vault-audit-checkpoint v1 events=${verified.events} hash=${hash} at=${at} mac=${mac}`
  return { events: verified.events, hash, at, checkpoint }
}

/**
 * Checks the log against a checkpoint read from `text` (the printed line or the JSON of
 * `vault audit checkpoint --json`; of several, the last): its MAC, then that the log still holds its
 * events, unchanged.
 */
export async function verifyAgainstCheckpoint(
  driver: SqlDriver,
  auditKey: Buffer,
  text: string,
): Promise<CheckpointVerification> {
  const match = [...text.matchAll(new RegExp(linePattern, 'g'))].at(-1)
  if (!match) {
    throw new UsageError('no audit checkpoint found in the given input', {
      hint: 'pass the line printed by vault audit checkpoint (or its --json output)',
    })
  }
  const [, eventsText, hash, at, mac] = match as unknown as [string, string, string, string, string]
  const events = Number(eventsText)
  const expected = Buffer.from(checkpointMac(auditKey, events, hash, at), 'hex')
  if (!timingSafeEqual(expected, Buffer.from(mac, 'hex'))) {
    throw new IntegrityError('the checkpoint fails its MAC (edited, forged, or taken on another vault)', {
      hint: 'use a checkpoint printed by vault audit checkpoint on this vault',
    })
  }
  const against = { events, at }
  const verified = await verifyAuditChain(driver, auditKey)
  if (!verified.ok) return { ...verified, against }
  if (verified.events < events) {
    return {
      ok: false,
      events: verified.events,
      brokenAt: verified.events + 1,
      reason: `the log holds ${verified.events} events but the checkpoint of ${at} saw ${events}: its tail was truncated`,
      against,
    }
  }
  const [row] = await driver.transaction((tx) =>
    tx.all<{ hash: string }>(`SELECT hash FROM audit_events WHERE seq = ?`, [events]),
  )
  if ((row?.hash ?? '0'.repeat(64)) !== hash) {
    return {
      ok: false,
      events: verified.events,
      brokenAt: events,
      reason: `event ${events} differs from the checkpoint of ${at}: the log was rewritten`,
      against,
    }
  }
  return { ...verified, against }
}

function brokenChain(verified: AuditVerification): IntegrityError {
  return new IntegrityError(
    `the audit chain is broken at event ${verified.brokenAt}: ${verified.reason}; no checkpoint was signed`,
    { hint: 'run vault audit verify, then restore the database from a backup' },
  )
}
