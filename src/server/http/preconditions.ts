/**
 * The preconditions of a write (RFC 9110 section 13.1): If-Match and If-None-Match, parsed and checked
 * against the secret row the write would change.
 */
import { ApiError } from './http.js'
import type { SecretRow } from '../secrets/secret-rows.js'

/** The conditional headers of a write: If-Match and If-None-Match (RFC 9110 section 13.1). */
export interface Preconditions {
  ifMatch?: string
  ifNoneMatch?: string
}

const entityTagList = /^\s*(?:\*|(?:W\/)?"[^"]*"(?:\s*,\s*(?:W\/)?"[^"]*")*)\s*$/

function parseTags(header: string, name: string): { any: boolean; strong: string[]; weak: boolean } {
  if (!entityTagList.test(header)) {
    throw new ApiError(400, 'bad_request', `${name} takes "*" or quoted entity tags like "3"`)
  }
  if (header.trim() === '*') return { any: true, strong: [], weak: false }
  const tags = header.split(',').map((tag) => tag.trim())
  return {
    any: false,
    strong: tags.filter((tag) => !tag.startsWith('W/')).map((tag) => tag.slice(1, -1)),
    weak: tags.some((tag) => tag.startsWith('W/')),
  }
}

/**
 * Checks If-Match (strong comparison: a weak tag never matches; `*` needs a live secret) and
 * If-None-Match (`*` or the current tag refuses the write) against the current row. A malformed or
 * unquoted tag is a 400, an unmet condition a 412.
 */
export function checkPreconditions(conditions: Preconditions, current: SecretRow | undefined): void {
  const live = current !== undefined && !Number(current.deleted)
  const version = live ? String(current.version) : undefined
  if (conditions.ifMatch !== undefined) {
    const wanted = parseTags(conditions.ifMatch, 'If-Match')
    if (wanted.any ? !live : version === undefined || !wanted.strong.includes(version)) {
      const why = wanted.weak && !wanted.strong.includes(version ?? '') ? ' (weak tags never match)' : ''
      throw new ApiError(
        412,
        'precondition_failed',
        `the secret is at version ${version ?? 'none'}, not ${conditions.ifMatch.trim()}${why}`,
      )
    }
  }
  if (conditions.ifNoneMatch !== undefined) {
    const refused = parseTags(conditions.ifNoneMatch, 'If-None-Match')
    const weakMatch = (tag: string) => tag === `W/"${version}"`
    const tags = conditions.ifNoneMatch.split(',').map((tag) => tag.trim())
    if (live && (refused.any || refused.strong.includes(version!) || tags.some(weakMatch))) {
      throw new ApiError(412, 'precondition_failed', `the secret already exists at version ${version}`)
    }
  }
}
