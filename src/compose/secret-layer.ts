/**
 * The seam between render and the vault: something that loads one environment's secrets as a
 * name-to-value map. The vault client provides it (`src/delivery/secret-layer.ts`); tests use fakes.
 */

/** The top layer of variables for `vault render --env`. */
export interface SecretLayer {
  /** All secrets of `environment` as name -> value. */
  load(environment: string): Promise<Record<string, string>>
  /** After `load`: the names of its values that are not secrets (`secrets set --plain`), never masked. */
  plainNames?(environment: string): ReadonlySet<string>
  /**
   * The secrets of `environment` stored as templates whose value changes with `name` (directly or
   * through other templates), sorted; after `load`. Absent or empty when the layer knows none.
   */
  templatesNaming?(environment: string, name: string): string[]
}

/** A layer over fixed values, for tests and for embedding render without a vault. */
export function staticSecretLayer(secretsByEnvironment: Record<string, Record<string, string>>): SecretLayer {
  return {
    async load(environment) {
      return { ...(secretsByEnvironment[environment] ?? {}) }
    },
  }
}
