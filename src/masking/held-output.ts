/**
 * The child's masked output that the CLI holds back for a moment (the last bytes of a write, until the
 * next one or 20 ms of quiet: src/masking/fast-copy.ts), shown before the CLI writes a line of its own, so
 * that under `2>&1` a note of `vault run --watch` never lands inside a line of the child's. Only what
 * the idle release would show is shown: a tail that could begin a value stays held. Kept free of
 * imports: every command's notes go through it.
 */

const releases = new Set<() => void>()

/** Registers a running copy's release; returns the function that unregisters it. */
export function trackHeldOutput(release: () => void): () => void {
  releases.add(release)
  return () => releases.delete(release)
}

/** Shows what every running masked copy holds back and could already show. */
export function releaseHeldOutput(): void {
  for (const release of releases) release()
}
