/**
 * The per-project data keys of a keyring (keyring.ts): each version wrapped under the root key in
 * data_keys, bound to its project and version. The unwrapped key of a version is kept in memory with
 * the wrapped text it came from; which version is a project's current one only as long as a database
 * generation vouches for it. A version's key changes only when a live restore (PostgreSQL) replaces
 * the rows: a wrapped text read that differs from the one in memory replaces it, and a value that the
 * key in memory cannot open is tried once more with the key the database holds now (a round trip
 * only on that failure).
 */
import { open, randomKey, seal } from '../../crypto/envelope.js'
import { IntegrityError } from '../../errors.js'
import type { SqlExecutor } from '../store/index.js'
import { laterCounter } from '../store/pg-generation.js'

export interface DataKey {
  version: number
  key: Buffer
}

/** A value sealed under a data key: its text, the associated data it is bound to, and what it is (for errors). */
export interface SealedUnder {
  text: string
  label: string
  what: string
}

const dataKeyLabel = (projectId: string, version: number) => `data-key|${projectId}|${version}`
const cacheKey = (projectId: string, version: number) => `${projectId}|${version}`

export class DataKeys {
  /** By `${projectId}|${version}`. */
  private readonly unwrapped = new Map<string, { wrapped: string; key: Buffer }>()
  /** Per project, the version found current and the `auth` counter it was found at. */
  private readonly currentVersions = new Map<string, { version: number; at: string }>()

  constructor(private readonly root: Buffer) {}

  /**
   * The project's current data key. Another process may add a version at any time (a replica, an
   * operator), so the version found current is used again only under the `auth` counter it was found
   * at: every change of data_keys moves it (pg-generation.ts), and a writing transaction checks the
   * counter it holds. Without one (SQLite, a write outside the read caches) the version is read in
   * `tx`: one indexed row, in process on SQLite.
   */
  async current(tx: SqlExecutor, projectId: string, held: string | undefined): Promise<DataKey> {
    const known = held === undefined ? undefined : this.currentVersions.get(projectId)
    if (known && known.at === held) return this.version(tx, projectId, known.version)
    const [row] = await tx.all<{ version: number; wrapped: string }>(
      `SELECT version, wrapped FROM data_keys WHERE project_id = ? ORDER BY version DESC LIMIT 1`,
      [projectId],
    )
    if (!row) return this.first(tx, projectId)
    const entry = this.remember(projectId, Number(row.version), row.wrapped)
    if (held !== undefined && (!known || laterCounter(held, known.at)))
      this.currentVersions.set(projectId, { version: entry.version, at: held })
    return entry
  }

  /** Data key `version` of the project; IntegrityError when it is missing. */
  async version(tx: SqlExecutor, projectId: string, version: number): Promise<DataKey> {
    const cached = this.unwrapped.get(cacheKey(projectId, version))
    if (cached) return { version, key: cached.key }
    return this.remember(projectId, version, await this.wrapped(tx, projectId, version))
  }

  /** Opens `sealed` with data key `version` of the project (see the module's note on a failure). */
  async open(tx: SqlExecutor, projectId: string, version: number, sealed: SealedUnder): Promise<Buffer> {
    const held = this.unwrapped.get(cacheKey(projectId, version))
    const { key } = await this.version(tx, projectId, version)
    try {
      return open(key, sealed.text, sealed.label, sealed.what)
    } catch (error) {
      if (!held) throw error
      const wrapped = await this.wrapped(tx, projectId, version)
      if (wrapped === held.wrapped) throw error
      return open(this.remember(projectId, version, wrapped).key, sealed.text, sealed.label, sealed.what)
    }
  }

  private async wrapped(tx: SqlExecutor, projectId: string, version: number): Promise<string> {
    const [row] = await tx.all<{ wrapped: string }>(
      `SELECT wrapped FROM data_keys WHERE project_id = ? AND version = ?`,
      [projectId, version],
    )
    if (!row) throw new IntegrityError(`data key ${version} of project ${projectId} is missing`)
    return row.wrapped
  }

  private remember(projectId: string, version: number, wrapped: string): DataKey {
    const cached = this.unwrapped.get(cacheKey(projectId, version))
    if (cached?.wrapped === wrapped) return { version, key: cached.key }
    const key = this.unwrap(projectId, version, wrapped)
    this.unwrapped.set(cacheKey(projectId, version), { wrapped, key })
    return { version, key }
  }

  private unwrap(projectId: string, version: number, wrapped: string): Buffer {
    return open(this.root, wrapped, dataKeyLabel(projectId, version), 'a data key')
  }

  /** Creates version 1 (or finds the one a concurrent writer created); not kept until committed. */
  private async first(tx: SqlExecutor, projectId: string): Promise<DataKey> {
    await tx.run(
      `INSERT INTO data_keys (project_id, version, root_version, wrapped, created_at) VALUES (?, 1, 1, ?, ?)
       ON CONFLICT (project_id, version) DO NOTHING`,
      [projectId, seal(this.root, randomKey(), dataKeyLabel(projectId, 1)), new Date().toISOString()],
    )
    return { version: 1, key: this.unwrap(projectId, 1, await this.wrapped(tx, projectId, 1)) }
  }
}
