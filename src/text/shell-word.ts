/**
 * A path or word as it must be typed into a POSIX shell, for the commands hints suggest (`chmod 600
 * FILE`, `rm -r DIR`). A plain path is shown as it is; any other is single-quoted, so a directory of a
 * project from elsewhere named `x;curl ... | sh;` is one argument when the hint is pasted, not a command.
 */
const plain = /^[A-Za-z0-9_./:@%+=,-]+$/

/** `value` as one shell word. */
export function shellWord(value: string): string {
  return plain.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`
}
