/**
 * The database generations of PostgreSQL (read-cache.ts builds on them): a one-row table whose two
 * counters move in the same transaction as every change of the rows the server caches. `auth` moves
 * with what decides a principal or a scope (tokens, identities, projects, environments), with the
 * project's webhooks (a write queues a delivery to each) and with the data keys (a write seals under
 * the version current at its `auth` counter, which it checks anyway), `content`
 * with what a listing shows (secrets, their versions, the root key), so a PATCH does not
 * empty the principal cache. The triggers are deferred to the commit and bump each counter once per
 * transaction: the counter row is the last lock a transaction takes (after the audit head), so it
 * adds no deadlock. Counter values come from one sequence and never repeat, even after the row is
 * deleted and installed again or its counters are set back by SQL (a repeated value would let a
 * replica take a later generation for the one its caches hold). Every table is classified here; a
 * test fails on a table nobody classified.
 */
import { createHash } from 'node:crypto'
import type { Generation, SqlExecutor } from './driver.js'

/** Tables whose changes move a generation, with the statements that move it. */
export const generationTables: Record<string, { family: 'auth' | 'content'; on: string }> = {
  projects: { family: 'auth', on: 'INSERT OR UPDATE OR DELETE' },
  environments: { family: 'auth', on: 'INSERT OR UPDATE OR DELETE' },
  identities: { family: 'auth', on: 'INSERT OR UPDATE OR DELETE' },
  // a new token is never cached (only principals found are), so its INSERT changes nothing cached
  access_tokens: { family: 'auth', on: 'UPDATE OR DELETE' },
  // a PATCH reads the project's active webhooks; they change as rarely as identities
  webhooks: { family: 'auth', on: 'INSERT OR UPDATE OR DELETE' },
  // a write seals under the data key version it found current at its `auth` counter (data-keys.ts),
  // so a new version moves `auth`; a project's first key moves it once
  data_keys: { family: 'auth', on: 'INSERT OR UPDATE OR DELETE' },
  secrets: { family: 'content', on: 'INSERT OR UPDATE OR DELETE' },
  secret_versions: { family: 'content', on: 'INSERT OR UPDATE OR DELETE' },
  root_keys: { family: 'content', on: 'INSERT OR UPDATE OR DELETE' },
}

/** Tables that move no generation, and why nothing cached depends on them. */
export const tablesWithoutGeneration: Record<string, string> = {
  meta: 'key fingerprint and settings, read at start-up, never cached',
  admins: 'human accounts: a human principal is loaded from the store on every request, never cached',
  human_sessions: 'sign-in sessions: human principals are never cached',
  audit_events: 'the audit log is appended, never cached',
  audit_head: 'the audit chain head is locked by every writing batch, never cached',
  webhook_outbox: 'deliveries are read by the delivery worker, never cached',
  schema_migrations: 'the schema version, read by migrate only',
  vault_generation: 'the generations themselves',
  oidc_used_tokens: 'jtis of exchanged OIDC tokens: inserted and checked in the exchange, never cached',
}

const bumpFunction = `CREATE OR REPLACE FUNCTION vault_bump_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('vault.bumped_' || TG_ARGV[0], true) IS DISTINCT FROM 'on' THEN
    IF TG_ARGV[0] = 'auth' THEN
      UPDATE vault_generation SET auth = nextval('vault_generation_counter') WHERE id = 1;
    ELSE
      UPDATE vault_generation SET content = nextval('vault_generation_counter') WHERE id = 1;
    END IF;
    PERFORM set_config('vault.bumped_' || TG_ARGV[0], 'on', true);
  END IF;
  RETURN NULL;
END
$$`

function installStatements(): string[] {
  const statements = [
    `CREATE TABLE IF NOT EXISTS vault_generation (id INTEGER PRIMARY KEY, auth BIGINT NOT NULL,
      content BIGINT NOT NULL, layout TEXT NOT NULL)`,
    `CREATE SEQUENCE IF NOT EXISTS vault_generation_counter`,
    bumpFunction,
  ]
  for (const [table, { family, on }] of Object.entries(generationTables)) {
    // TRUNCATE fires no row trigger: a statement trigger (at once; the vault never truncates) covers it
    statements.push(
      `DROP TRIGGER IF EXISTS vault_generation ON ${table}`,
      `CREATE CONSTRAINT TRIGGER vault_generation AFTER ${on} ON ${table} DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION vault_bump_generation('${family}')`,
      `DROP TRIGGER IF EXISTS vault_generation_truncate ON ${table}`,
      `CREATE TRIGGER vault_generation_truncate AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION vault_bump_generation('${family}')`,
    )
  }
  return statements
}

/** A fingerprint of the triggers this binary installs, so a changed set is reinstalled once. */
const layout = createHash('sha256').update(installStatements().join('\n')).digest('hex').slice(0, 16)

/**
 * Installs (or brings up to date) the generation table and triggers; runs inside migrate's exclusive
 * transaction on PostgreSQL. Not a schema version: SQLite needs none of it, and backups stay portable.
 */
export async function installGenerations(tx: SqlExecutor): Promise<void> {
  const [exists] = await tx.all(`SELECT 1 AS found FROM pg_tables WHERE tablename = 'vault_generation'
    AND schemaname = current_schema()`)
  if (exists) {
    const [row] = await tx.all<{ layout: string }>(`SELECT layout FROM vault_generation WHERE id = 1`)
    if (row?.layout === layout) return
  }
  for (const statement of installStatements()) await tx.run(statement)
  // counters are drawn from a sequence, so a value never comes back (a row deleted and installed
  // again, or counters set back by SQL): a replica's caches cannot mistake a later generation for theirs
  await tx.all(`SELECT setval('vault_generation_counter', GREATEST(
    (SELECT last_value FROM vault_generation_counter),
    (SELECT COALESCE(MAX(GREATEST(auth, content)), 0) FROM vault_generation)) + 1, false)`)
  await tx.run(
    `INSERT INTO vault_generation (id, auth, content, layout)
     VALUES (1, nextval('vault_generation_counter'), nextval('vault_generation_counter'), ?)
     ON CONFLICT (id) DO UPDATE SET layout = excluded.layout, auth = nextval('vault_generation_counter'),
     content = nextval('vault_generation_counter')`,
    [layout],
  )
}

/** The statement a replica runs to learn the current generations. */
export const readGenerationSql = `SELECT auth::text AS auth, content::text AS content FROM vault_generation WHERE id = 1`

/** Whether a relied-on generation names any counter (none: nothing cached was used). */
export function assumesAny(relied: Partial<Generation>): boolean {
  return relied.auth !== undefined || relied.content !== undefined
}

/** Whether counter value `a` came after `b` (values are drawn from one sequence). */
export function laterCounter(a: string, b: string): boolean {
  return BigInt(a) > BigInt(b)
}

/** Whether generation `a` is newer than `b` (both counters only grow). */
export function newerGeneration(a: Generation, b: Generation): boolean {
  return laterCounter(a.auth, b.auth) || (a.auth === b.auth && laterCounter(a.content, b.content))
}

/** Whether the counters that `relied` names are still those of `current`. */
export function stillHolds(relied: Partial<Generation>, current: Partial<Generation>): boolean {
  return (
    (relied.auth === undefined || relied.auth === current.auth) &&
    (relied.content === undefined || relied.content === current.content)
  )
}
