/**
 * Claims the path a unix frontend listens on. A socket that nothing accepts on any more (left by a
 * process that has gone) is removed, as servers do. A socket that a process still accepts on is never
 * replaced: removing it cut that process's clients off for good, and handed the path to this proxy's
 * rules (the engine's own socket given as the frontend by mistake: the engine had no socket left after
 * the proxy stopped; or a second proxy taking the first one's socket). Anything else at the path (a
 * file, a directory, a symbolic link) is left where it is.
 */
import { lstatSync, unlinkSync, type Stats } from 'node:fs'
import net from 'node:net'
import { UsageError } from '../errors.js'

/** How long a socket may take to accept before it counts as in use. */
const probeMs = 1_000

/** Why the socket at `path` counts as in use, or null when nothing accepts on it (refused). */
function inUseReason(path: string): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ path })
    const done = (answer: string | null) => {
      socket.destroy()
      resolve(answer)
    }
    socket.setTimeout(probeMs, () => done(`it did not answer within ${probeMs} ms`))
    socket.once('connect', () => done('a process accepts connections on it'))
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(error.code === 'ECONNREFUSED' ? null : `connecting to it failed (${error.code ?? error.message})`),
    )
  })
}

function existing(path: string): Stats | null {
  try {
    return lstatSync(path)
  } catch {
    return null
  }
}

/** Makes `path` free for listen(), or throws UsageError saying what is there and why it stays. */
export async function claimSocketPath(path: string): Promise<void> {
  const found = existing(path)
  if (!found) return
  const address = `unix://${path}`
  if (!found.isSocket()) {
    throw new UsageError(`PROXY_FRONTEND_ADDR "${address}": something that is not a socket is there`, {
      hint: 'vault proxy serve replaces only a socket left by a process that has gone; choose a free path',
    })
  }
  const inUse = await inUseReason(path)
  if (inUse) {
    throw new UsageError(`PROXY_FRONTEND_ADDR "${address}" is in use: ${inUse}`, {
      hint: 'stop the process that listens there (another proxy, or the engine itself), or choose another path',
    })
  }
  unlinkSync(path)
}
