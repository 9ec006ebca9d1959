/**
 * The names behind `identity:ID` audit actors, for `vault audit list` and `vault secrets history`:
 * the actor column keeps the id (an identity may be renamed or revoked); readers show the name.
 */
import type { SqlExecutor } from './store/index.js'

/** For each `identity:ID` among `actors` whose identity exists, its name (keyed by the actor). */
export async function identityNames(
  tx: SqlExecutor,
  actors: readonly string[],
): Promise<Map<string, string>> {
  const ids = [
    ...new Set(actors.filter((actor) => actor.startsWith('identity:')).map((actor) => actor.slice(9))),
  ]
  const names = new Map<string, string>()
  for (let start = 0; start < ids.length; start += 500) {
    const batch = ids.slice(start, start + 500)
    const rows = await tx.all<{ id: string; name: string }>(
      `SELECT id, name FROM identities WHERE id IN (${batch.map(() => '?').join(', ')})`,
      batch,
    )
    for (const row of rows) names.set(`identity:${row.id}`, String(row.name))
  }
  return names
}
