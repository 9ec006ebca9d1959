/**
 * The entries of an uncompressed tar archive (pure), as far as the guard needs them for an archive
 * upload: each entry's name (the ustar prefix joined as Go's archive/tar joins it) and type flag, with
 * every header's checksum verified. Anything else (a compressed archive, which the engine would
 * decompress, a bad checksum, a truncated entry, a size that is not octal) is an error: the caller
 * refuses the upload. Entries are never extracted here.
 */

/** One tar entry: its name and its type flag (`0` or NUL for a regular file). */
export interface TarEntry {
  name: string
  type: string
}

const block = 512

function field(header: Buffer, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length)
  const end = bytes.indexOf(0)
  return bytes.subarray(0, end === -1 ? length : end).toString('utf8')
}

function octal(header: Buffer, offset: number, length: number): number | undefined {
  const text = field(header, offset, length).trim()
  return /^[0-7]{1,12}$/.test(text) ? Number.parseInt(text, 8) : undefined
}

function checksumOk(header: Buffer): boolean {
  const recorded = octal(header, 148, 8)
  let sum = 0
  for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!
  return recorded === sum
}

/** The entries of `archive`, or a reason it cannot be read whole. */
export function tarEntries(archive: Buffer): TarEntry[] | string {
  const entries: TarEntry[] = []
  let offset = 0
  while (offset + block <= archive.length) {
    const header = archive.subarray(offset, offset + block)
    if (header.every((byte) => byte === 0)) return entries
    if (!checksumOk(header)) return 'a tar header has a wrong checksum (or the archive is compressed)'
    const size = octal(header, 124, 12)
    if (size === undefined) return 'a tar entry has no octal size'
    const ustar = field(header, 257, 6) === 'ustar' && header.subarray(263, 265).toString('latin1') === '00'
    const prefix = ustar ? field(header, 345, 155) : ''
    const name = field(header, 0, 100)
    entries.push({
      name: prefix === '' ? name : `${prefix}/${name}`,
      type: String.fromCharCode(header[156]!),
    })
    offset += block + Math.ceil(size / block) * block
    if (offset > archive.length) return 'the tar archive is truncated'
  }
  return offset === archive.length ? entries : 'the tar archive is truncated'
}
