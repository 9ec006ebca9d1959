/**
 * Whether a command line names a command by the words before its first flag, as oclif reads them with a
 * space as topic separator (`secrets list`) or with colons (`secrets:list`).
 */

/** True when the leading words of `argv` (up to the first flag) start with one of `ids`. */
export function namesOwnCommand(argv: readonly string[], ids: readonly string[]): boolean {
  const known = new Set(ids)
  const words: string[] = []
  for (const arg of argv) {
    if (arg.startsWith('-')) break
    words.push(arg)
  }
  for (let count = words.length; count > 0; count--) {
    if (known.has(words.slice(0, count).join(':'))) return true
  }
  return false
}
