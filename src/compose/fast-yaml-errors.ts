/** The signal of the fast YAML reader that a text needs the full parser. */
import { VaultError } from '../errors.js'

/**
 * The text uses YAML the fast reader does not handle: parse it with the full parser instead. Internal:
 * the loader always catches it, so reaching the user would be a bug (exit 1).
 */
export class UnsupportedYaml extends VaultError {
  override name = 'UnsupportedYaml'
  override readonly code: string = 'ERR_UNSUPPORTED_YAML'
}
