/** The signal of the fast YAML reader that a text needs the full parser. */

/** The text uses YAML the fast reader does not handle: parse it with the full parser instead. */
export class UnsupportedYaml extends Error {
  override name = 'UnsupportedYaml'
}
