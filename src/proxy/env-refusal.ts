/**
 * Requests a masking rule set refuses (pure): answers that would show a container's environment in a
 * shape the proxy cannot mask, chosen by a query parameter on a path the read-only presets allow.
 * - container top `ps_args`: `ps e` prints each process's environment after its command line; only
 *   options known not to show it pass (`aux`, `-ef` and clusters of the same letters, no `e` outside a
 *   dash word, no `-o` formats), as `ps` options are many (`docker top NAME` without options works);
 * - container, service and task logs `details`: each line then starts with the values the log driver
 *   attaches, environment values included when it was started with `--log-opt env=NAME` or `env-regex`;
 * - libpod's container top `stream`: a process list without end, which cannot be held whole and masked.
 * Parameters are read as the engine reads them (Go's url.ParseQuery, Moby's httputils.BoolValue); `;`
 * separates pairs too, as it did in the Go of older engines.
 */
import { anyContainer, anyName, enginePath } from './engine-routes.js'

/** `ps` words that never show an environment: BSD clusters without `e`, UNIX clusters without formats. */
const plainPsWord = /^(?:[afjlsuvwx]+|-[AadefFHjlLwy]+)$/

interface RiskyParameter {
  path: RegExp
  name: string
  isSet(value: string): boolean
  why: string
}

/** Moby's BoolValue: anything but empty, 0, no, false or none (trimmed, any case) is true. */
const boolValue = (value: string) => !['', '0', 'no', 'false', 'none'].includes(value.trim().toLowerCase())

const riskyParameters: readonly RiskyParameter[] = [
  {
    path: enginePath(`${anyContainer}/top`),
    name: 'ps_args',
    isSet: (value) =>
      value.trim() !== '' &&
      !value
        .trim()
        .split(/\s+/)
        .every((word) => plainPsWord.test(word)),
    why: 'ps_args can make ps print the environment of container processes (ps e), which is masked here',
  },
  {
    path: enginePath(`(?:${anyContainer}|/(?:services|tasks)/[^/]+)/logs`),
    name: 'details',
    isSet: boolValue,
    why: 'details shows what the log driver attaches to each line, environment values included (--log-opt env=NAME), which is masked here',
  },
  {
    path: enginePath(`/libpod/containers/${anyName}/top`),
    name: 'stream',
    isSet: boolValue,
    why: 'stream sends the process list without end, and a process list is masked here as a whole',
  },
]

/** The query's pairs as the engine (Go's url.ParseQuery) decodes them; undefined for a bad escape. */
export function queryPairs(query: string): [string, string][] | undefined {
  const pairs: [string, string][] = []
  const decode = (text: string) => decodeURIComponent(text.replaceAll('+', ' '))
  for (const pair of query.replace(/^\?/, '').split(/[&;]/)) {
    if (pair === '') continue
    const equals = pair.indexOf('=')
    try {
      pairs.push(
        equals === -1 ? [decode(pair), ''] : [decode(pair.slice(0, equals)), decode(pair.slice(equals + 1))],
      )
    } catch {
      return undefined
    }
  }
  return pairs
}

/**
 * Why `ruleSet`, when it masks the environment, refuses this allowed request, or undefined: `query` is
 * the raw query (`?a=b` or empty). A query the engine could not decode is refused on those paths too.
 */
export function environmentRefusal(
  ruleSet: { redactEnv: boolean },
  method: string,
  canonicalPath: string,
  query: string,
): string | undefined {
  if (!ruleSet.redactEnv || method !== 'GET' || query === '') return undefined
  const risky = riskyParameters.filter((parameter) => parameter.path.test(canonicalPath))
  if (risky.length === 0) return undefined
  const pairs = queryPairs(query)
  for (const parameter of risky) {
    if (pairs === undefined || pairs.some(([key, value]) => key === parameter.name && parameter.isSet(value)))
      return parameter.why
  }
  return undefined
}
