/**
 * `vault scan --rotate`: each secret whose *current* value was found is rotated exactly as `vault
 * rotate NAME` does (src/rotate/rotate-secret.ts: new value, PATCH with If-Match, the services that use
 * it recreated, rollback when they do not come back). A past value found needs no rotation: the vault
 * no longer hands it out. What a rotation cannot clean is listed: the commits that hold a value (a
 * history rewrite), the images (a rebuild without the value) and the containers and logs.
 */
import type { VaultApi } from '../client/vault-api.js'
import { rotateSecret, type RotateOptions, type RotateResult } from '../rotate/rotate-secret.js'
import type { ScanFinding } from './findings.js'

export interface ScanRotation {
  name: string
  result?: RotateResult
  /** Why the rotation failed (the error's message and code), when it did. */
  error?: { message: string; code: string }
}

export interface LeftToClean {
  /** Commits that first hold a value at a path: rewrite them out of the history. */
  commits: Array<{ commit: string; paths: string[] }>
  /** Images whose history or config holds a value: rebuild them without it and remove the old ones. */
  images: Array<{ image: string; tags: string[]; fields: string[] }>
  /** Containers holding a value (labels, command, Env, logs): recreate or remove them. */
  containers: Array<{ container: string; name: string; fields: string[] }>
  /** Files under --path and in git's index that hold a value. */
  files: string[]
}

/** Rotates every secret whose current value was found, one after another. */
export async function rotateFound(
  api: VaultApi,
  findings: readonly ScanFinding[],
  options: Omit<RotateOptions, 'name'>,
): Promise<ScanRotation[]> {
  const names = [
    ...new Set(findings.filter((finding) => finding.current).map((finding) => finding.secret)),
  ].sort()
  const rotations: ScanRotation[] = []
  for (const name of names) {
    try {
      rotations.push({ name, result: await rotateSecret(api, { ...options, name }) })
    } catch (error) {
      const { message, code } = error as { message?: string; code?: string }
      options.note(`Warning: ${name} was not rotated: ${message ?? String(error)}`)
      rotations.push({ name, error: { message: message ?? String(error), code: code ?? 'ERR_UNEXPECTED' } })
    }
  }
  return rotations
}

/** What is left to clean after the rotations: grouped by commit, image, container and file. */
export function leftToClean(findings: readonly ScanFinding[]): LeftToClean {
  const commits = new Map<string, Set<string>>()
  const images = new Map<string, { tags: string[]; fields: Set<string> }>()
  const containers = new Map<string, { name: string; fields: Set<string> }>()
  const files = new Set<string>()
  for (const { location } of findings) {
    if (location.source === 'git') addTo(commits, location.commit, () => new Set<string>()).add(location.path)
    else if (location.source === 'image')
      addTo(images, location.image, () => ({ tags: location.tags, fields: new Set<string>() })).fields.add(
        location.field,
      )
    else if (location.source === 'container')
      addTo(containers, location.container, () => ({
        name: location.name,
        fields: new Set<string>(),
      })).fields.add(location.field)
    else if (location.source === 'path' || location.source === 'staged') files.add(location.path)
  }
  return {
    commits: [...commits].map(([commit, paths]) => ({ commit, paths: [...paths].sort() })),
    images: [...images].map(([image, entry]) => ({ image, tags: entry.tags, fields: [...entry.fields] })),
    containers: [...containers].map(([container, entry]) => ({
      container,
      name: entry.name,
      fields: [...entry.fields],
    })),
    files: [...files].sort(),
  }
}

function addTo<V>(map: Map<string, V>, key: string, make: () => V): V {
  if (!map.has(key)) map.set(key, make())
  return map.get(key)!
}
