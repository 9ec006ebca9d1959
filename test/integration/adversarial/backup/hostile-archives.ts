/**
 * The hostile archive corpus: each entry turns a genuine archive (written by `vault backup`) into
 * what an attacker without ENCRYPTION_KEY can make of it, with the project's own encoder where that
 * helps them (the format is public, the archive itself is not encrypted). One entry per attack, named
 * after it, with the refusal it must meet. The archives are built at test time from a fresh vault, so
 * they always match the current schema.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync, gzipSync } from 'node:zlib'
import { encodeArchive } from '../../../../src/backup/archive-write.js'
import type { BackupManifest, TableSnapshot } from '../../../../src/backup/manifest.js'
import type { SqlRow } from '../../../../src/server/store/index.js'

/** What the attacker reads out of a genuine archive (no key needed). */
export interface DecodedArchive {
  manifest: BackupManifest
  tables: Record<string, SqlRow[]>
  lines: Buffer[]
}

/** Who is who in the seeded vault the genuine archive was taken from. */
export interface SeededNames {
  /** The read-only identity the attacker controls. */
  readerId: string
  /** The read/write deployment identity. */
  deploymentId: string
  /** The secret written three times. */
  secretName: string
}

export interface HostileArchive {
  attack: string
  /** Writes the hostile archive to `path`. */
  build(genuine: string, path: string, names: SeededNames): void
  /** What the refusal says. */
  refusal: RegExp
}

/** Splits a genuine archive into its manifest, rows and raw lines, as anyone can. */
export function decode(path: string): DecodedArchive {
  const text = gunzipSync(readFileSync(path))
  const lines: Buffer[] = []
  for (let start = 0; start < text.length;) {
    const end = text.indexOf(0x0a, start)
    lines.push(text.subarray(start, end + 1))
    start = end + 1
  }
  const manifest = (JSON.parse(lines[0]!.toString()) as { manifest: BackupManifest }).manifest
  const tables: Record<string, SqlRow[]> = {}
  for (const line of lines.slice(1, -1)) {
    const chunk = JSON.parse(line.toString()) as { table: string; rows: SqlRow[] }
    ;(tables[chunk.table] ??= []).push(...chunk.rows)
  }
  return { manifest, tables, lines }
}

/** Rebuilds an archive with the project's own encoder, the victim's public fingerprint and a guessed key. */
export function forge(genuine: string, path: string, edit: (tables: Record<string, SqlRow[]>) => void): void {
  const { manifest, tables } = decode(genuine)
  edit(tables)
  const snapshot: TableSnapshot = { schemaVersion: manifest.schemaVersion, engine: manifest.engine, tables }
  const encoded = encodeArchive(snapshot, {
    keyFingerprint: manifest.keyFingerprint,
    encryptionKey: randomBytes(32),
  })
  writeFileSync(path, gzipSync(Buffer.concat(encoded.lines)))
}

const forgedMac = /it fails its MAC: it was not written by vault backup under this ENCRYPTION_KEY/

function rowOf(tables: Record<string, SqlRow[]>, table: string, id: string): SqlRow {
  const row = tables[table]!.find((candidate) => candidate.id === id)
  if (!row) throw new Error(`no ${table} row ${id} in the genuine archive`)
  return row
}

export const hostileArchives: HostileArchive[] = [
  {
    attack: 'forged with the own encoder and no key, content unchanged',
    build: (genuine, path) => forge(genuine, path, () => undefined),
    refusal: forgedMac,
  },
  {
    attack: 'role escalation: the read-only identity made admin on every environment',
    build: (genuine, path, names) =>
      forge(genuine, path, (tables) => {
        const reader = rowOf(tables, 'identities', names.readerId)
        const environments = tables.environments!.map((row) => String(row.slug))
        reader.permissions = JSON.stringify(
          Object.fromEntries(environments.map((slug) => [slug, ['read', 'write', 'admin']])),
        )
      }),
    refusal: forgedMac,
  },
  {
    attack: 'version pointer rollback: the secret pointed back to version 1, newer versions dropped',
    build: (genuine, path, names) =>
      forge(genuine, path, (tables) => {
        const secret = tables.secrets!.find((row) => row.name === names.secretName)!
        secret.version = 1
        tables.secret_versions = tables.secret_versions!.filter(
          (row) => row.secret_id !== secret.id || Number(row.version) === 1,
        )
      }),
    refusal: forgedMac,
  },
  {
    attack: 'dropped audit tail: the newest events removed, the head copied from the last one kept',
    build: (genuine, path) =>
      forge(genuine, path, (tables) => {
        const events = tables.audit_events!.sort((a, b) => Number(a.seq) - Number(b.seq))
        const kept = events.slice(0, Math.max(1, events.length - 5))
        tables.audit_events = kept
        const last = kept.at(-1)!
        tables.audit_head = [{ ...tables.audit_head![0]!, seq: last.seq!, hash: last.hash! }]
      }),
    refusal: forgedMac,
  },
  {
    attack: "copied client-secret hash: the deployment identity's hash (and row MAC) given to the reader",
    build: (genuine, path, names) =>
      forge(genuine, path, (tables) => {
        const deployment = rowOf(tables, 'identities', names.deploymentId)
        const reader = rowOf(tables, 'identities', names.readerId)
        reader.secret_hash = deployment.secret_hash!
        reader.row_mac = deployment.row_mac!
      }),
    refusal: forgedMac,
  },
  {
    attack: "the genuine trailer's MAC copied onto edited content (checksum recomputed)",
    build: (genuine, path, names) => {
      forge(genuine, path, (tables) => {
        rowOf(tables, 'identities', names.readerId).permissions = '{"dev":["admin"]}'
      })
      const forged = decode(path)
      const genuineTrailer = JSON.parse(decode(genuine).lines.at(-1)!.toString()) as {
        trailer: { hmac: string }
      }
      const trailer = JSON.parse(forged.lines.at(-1)!.toString()) as {
        trailer: { sha256: string; hmac: string }
      }
      trailer.trailer.hmac = genuineTrailer.trailer.hmac
      writeFileSync(
        path,
        gzipSync(Buffer.concat([...forged.lines.slice(0, -1), Buffer.from(`${JSON.stringify(trailer)}\n`)])),
      )
    },
    refusal: forgedMac,
  },
  {
    attack: 'MAC stripped from the trailer (only the unkeyed checksum left)',
    build: (genuine, path) => {
      const { lines } = decode(genuine)
      const trailer = JSON.parse(lines.at(-1)!.toString()) as { trailer: Record<string, string> }
      delete trailer.trailer.hmac
      writeFileSync(
        path,
        gzipSync(Buffer.concat([...lines.slice(0, -1), Buffer.from(`${JSON.stringify(trailer)}\n`)])),
      )
    },
    refusal: /its trailer is missing/,
  },
  {
    attack: 'downgrade to the unauthenticated format 1 (manifest says formatVersion 1)',
    build: (genuine, path) => {
      const { lines } = decode(genuine)
      const manifest = JSON.parse(lines[0]!.toString()) as { manifest: BackupManifest }
      manifest.manifest.formatVersion = 1
      writeFileSync(
        path,
        gzipSync(Buffer.concat([Buffer.from(`${JSON.stringify(manifest)}\n`), ...lines.slice(1)])),
      )
    },
    refusal: /format version 1, which is not authenticated/,
  },
  {
    attack: 'an extra chunk spliced in before the trailer',
    build: (genuine, path, names) => {
      const { lines } = decode(genuine)
      const extra = Buffer.from(
        `${JSON.stringify({ table: 'identities', rows: [{ id: 'evil', project_id: 'x', name: 'evil', client_id: 'vc_evil', secret_hash: '00', permissions: '{}', created_at: names.secretName }] })}\n`,
      )
      writeFileSync(path, gzipSync(Buffer.concat([...lines.slice(0, -1), extra, lines.at(-1)!])))
    },
    refusal: /its checksum does not match its content/,
  },
  {
    attack: 'a second gzip member appended after the genuine archive',
    build: (genuine, path) => {
      const extra = gzipSync(`${JSON.stringify({ table: 'meta', rows: [{ key: 'x', value: 'y' }] })}\n`)
      writeFileSync(path, Buffer.concat([readFileSync(genuine), extra]))
    },
    refusal: /its trailer is missing|cannot be used/,
  },
  {
    attack: 'a flipped byte in the compressed data',
    build: (genuine, path) => {
      const bytes = Buffer.from(readFileSync(genuine))
      bytes[Math.floor(bytes.length / 2)]! ^= 0x01
      writeFileSync(path, bytes)
    },
    refusal: /cannot be used/,
  },
  {
    attack: 'a truncated file',
    build: (genuine, path) => {
      const bytes = readFileSync(genuine)
      writeFileSync(path, bytes.subarray(0, bytes.length - 40))
    },
    refusal: /cannot be used: it is truncated/,
  },
]
