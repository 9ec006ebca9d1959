/**
 * What `vault logout` does with the offline copies of the vault and project it logs out of: deletes
 * them when asked (--delete-fallback, or yes at the prompt in a terminal), else keeps them and says
 * so. The key goes too once no copy of any vault is left.
 */
import { deleteFallbackKey } from './fallback-key.js'
import { deleteCopies, listCopies } from './fallback-store.js'

export interface OfflineCopiesResult {
  /** The environments that had a copy ('' for the server's default). */
  environments: string[]
  deleted: boolean
}

export interface ForgetOptions {
  domain: string
  project: string
  /** --delete-fallback (true), --no-delete-fallback (false), or undefined to ask in a terminal. */
  choice: boolean | undefined
  /** Whether a question can be asked (stdin and stderr are terminals, no --json). */
  interactive: boolean
  env?: NodeJS.ProcessEnv
}

/** Lists the copies, decides, and deletes them when that is the decision. */
export async function forgetOfflineCopies(options: ForgetOptions): Promise<OfflineCopiesResult> {
  const copies = await listCopies(options.domain, options.project, options.env)
  const environments = copies.map((copy) => copy.identity.environment).sort()
  if (copies.length === 0) return { environments, deleted: false }
  const deleting = options.choice ?? (options.interactive ? await askToDelete(environments) : false)
  if (!deleting) return { environments, deleted: false }
  const noneLeft = await deleteCopies(
    copies.map((copy) => copy.path),
    options.env,
  )
  if (noneLeft) await deleteFallbackKey(options.env)
  return { environments, deleted: true }
}

async function askToDelete(environments: string[]): Promise<boolean> {
  const { confirm } = await import('@inquirer/prompts')
  const names = environments.map((name) => name || '(default)').join(', ')
  return confirm(
    { message: `delete the offline copies of ${names} kept by --fallback?`, default: false },
    { output: process.stderr },
  )
}
