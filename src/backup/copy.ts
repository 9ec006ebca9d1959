/**
 * `--copy-to`: copying an archive off the host's data directory and proving the copy is good (same
 * bytes, and it reads back as a complete archive). The copy is atomic and mode 600 like the original.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { IntegrityError, NotFoundError } from '../errors.js'
import { replaceFileAtomically } from '../fs/atomic-file.js'
import { authenticateArchive } from './archive-read.js'
import { fileWriteError } from './file-errors.js'

export interface CopyResult {
  path: string
  sha256: string
  /** True when the destination is on the same device as the database (a disk loss takes both). */
  sameDeviceAsDatabase: boolean
}

/**
 * Copies the archive `source.path` (whose SHA-256 is `source.sha256`) into `directory`, verifies the copy, and says
 * whether it shares the database's disk.
 */
export async function copyArchive(
  source: { path: string; sha256: string },
  directory: string,
  kek: Buffer,
  databasePath?: string,
): Promise<CopyResult> {
  const { path: archive, sha256: archiveSha256 } = source
  const target = join(resolve(directory), basename(archive))
  const directoryInfo = await stat(directory).catch(() => null)
  if (!directoryInfo?.isDirectory()) {
    throw new NotFoundError(`--copy-to ${directory} is not a directory`, {
      hint: 'create it (or mount it) first',
    })
  }
  try {
    await replaceFileAtomically(target, (handle) => handle.writeFile(createReadStream(archive)))
  } catch (error) {
    throw fileWriteError(error, target)
  }
  const copy = await sha256Of(target)
  if (archiveSha256 !== copy) {
    throw new IntegrityError(`the copy ${target} differs from ${archive}`, {
      hint: 'check the destination disk, then copy again',
    })
  }
  await authenticateArchive(target, kek)
  const databaseDevice = databasePath ? (await stat(dirname(databasePath)).catch(() => null))?.dev : undefined
  return { path: target, sha256: copy, sameDeviceAsDatabase: databaseDevice === directoryInfo.dev }
}

/** SHA-256 (hex) of a file's bytes. */
export async function sha256Of(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex')
}
