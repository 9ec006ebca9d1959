/**
 * The subject patterns an identity trusts: an exact subject, or a glob whose `*` matches any run of
 * characters within ONE `:`-separated segment (`repo:acme/stack:ref:refs/heads/*`), so a `*` can
 * never stand for the `:` that separates, say, a repository from its ref. Matching is linear in the
 * pattern times the subject (no regular expression built from admin input, no backtracking blow-up).
 */

/** The longest pattern or subject compared. */
export const maxSubjectLength = 512

// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

/** Why `pattern` cannot be a trusted subject pattern, or undefined when it can. */
export function subjectPatternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'the subject pattern is empty'
  if (pattern.length > maxSubjectLength)
    return `the subject pattern is longer than ${maxSubjectLength} characters`
  if (controlCharacters.test(pattern)) return 'the subject pattern holds a control character'
  if (pattern.split(':').every((segment) => segment === '*'))
    return 'the subject pattern matches every subject: name at least one segment'
  return undefined
}

/** Whether `subject` matches `pattern` (segment by segment; `*` never crosses a `:`). */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (subject.length > maxSubjectLength) return false
  const wanted = pattern.split(':')
  const given = subject.split(':')
  if (wanted.length !== given.length) return false
  return wanted.every((segment, index) => segmentMatches(segment, given[index]!))
}

/** Glob match of one segment (no `:` on either side): `*` is any run of characters, the rest literal. */
function segmentMatches(glob: string, text: string): boolean {
  let g = 0
  let t = 0
  let star = -1
  let resume = 0
  while (t < text.length) {
    if (g < glob.length && glob[g] !== '*' && glob[g] === text[t]) {
      g++
      t++
    } else if (g < glob.length && glob[g] === '*') {
      star = g++
      resume = t
    } else if (star >= 0) {
      g = star + 1
      t = ++resume
    } else {
      return false
    }
  }
  while (g < glob.length && glob[g] === '*') g++
  return g === glob.length
}
