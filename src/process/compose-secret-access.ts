/**
 * Who may read a compose v1 secret file. docker-compose 1.x bind-mounts a `file:` secret as it is on
 * the host and ignores the long syntax's `uid`, `gid` and `mode` (compose v2 gives the container a
 * copy with them, mode 0444 owned by root unless told otherwise), so the file `vault run` writes must
 * carry them itself: mode 0444 by default, as compose v2; a reference with its own `uid`, `gid` or
 * `mode` gets a file of its own (a secret two services mount differently needs two files), named
 * `SOURCE.vault-u<uid>-g<gid>-m<mode>` and mounted at the original target.
 */
import { chown } from 'node:fs/promises'
import type { Scalar, YAMLMap } from 'yaml'
import { ComposeInputError } from '../compose/errors.js'
import { NotConfiguredError } from '../errors.js'
import { yamlModule } from '../text/yaml-module.js'

/** The owner and mode of one secret file. */
export interface SecretAccess {
  uid?: number
  gid?: number
  mode: number
}

/** compose v2's default: readable by every user of the container. */
export const defaultSecretMode = 0o444

const maxId = 2 ** 31 - 1

/** The scalar's text as written (`0440` stays octal text, not YAML 1.2's decimal 440). */
function scalarText(node: unknown): { text: string; quoted: boolean } | undefined {
  const yaml = yamlModule()
  if (!yaml.isScalar(node)) return undefined
  const scalar = node as Scalar & { source?: string }
  const quoted = scalar.type === 'QUOTE_DOUBLE' || scalar.type === 'QUOTE_SINGLE'
  return { text: quoted ? String(scalar.value) : (scalar.source ?? String(scalar.value)), quoted }
}

/**
 * A mode as compose reads it: `0440` and `0o440` are octal, a plain number is decimal (PyYAML and
 * compose v2 agree), a quoted string is octal. Only permission bits: no setuid, setgid or sticky bit.
 */
function parseMode(node: unknown, where: () => never): number {
  const written = scalarText(node)
  if (!written) return where()
  const { text, quoted } = written
  let mode: number
  if (/^0o?[0-7]+$/.test(text) || (quoted && /^[0-7]+$/.test(text)))
    mode = parseInt(text.replace(/^0o/, ''), 8)
  else if (/^(0|[1-9][0-9]{0,5})$/.test(text)) mode = Number(text)
  else return where()
  return mode <= 0o777 ? mode : where()
}

/** A numeric user or group id (a name means nothing outside the container's own /etc/passwd). */
function parseId(node: unknown, where: () => never): number {
  const written = scalarText(node)
  if (!written || !/^[0-9]{1,10}$/.test(written.text)) return where()
  const id = Number(written.text)
  return id <= maxId ? id : where()
}

/** The access a service's long-syntax secret reference asks for; throws ComposeInputError when malformed. */
export function accessOf(reference: YAMLMap, file: string, service: string, source: string): SecretAccess {
  const refuse = (field: string, expected: string) => (): never => {
    throw new ComposeInputError(
      file,
      undefined,
      `service ${service}: secret ${source}: ${field} must be ${expected}`,
      'fix the value; no secret file was written',
    )
  }
  const access: SecretAccess = { mode: defaultSecretMode }
  if (reference.has('mode'))
    access.mode = parseMode(reference.get('mode', true), refuse('mode', 'an octal mode up to 0777'))
  if (reference.has('uid'))
    access.uid = parseId(reference.get('uid', true), refuse('uid', 'a numeric user id'))
  if (reference.has('gid'))
    access.gid = parseId(reference.get('gid', true), refuse('gid', 'a numeric group id'))
  return access
}

/** The top-level secret name for `source` mounted with `access`: `source` itself for the default. */
export function variantName(source: string, access: SecretAccess): string {
  if (access.uid === undefined && access.gid === undefined && access.mode === defaultSecretMode) return source
  const id = (value: number | undefined) => (value === undefined ? 'x' : String(value))
  return `${source}.vault-u${id(access.uid)}-g${id(access.gid)}-m${access.mode.toString(8).padStart(4, '0')}`
}

/** Gives the written file its owner (its mode was set when it was written). */
export async function applyOwner(path: string, access: SecretAccess, secret: string): Promise<void> {
  if (access.uid === undefined && access.gid === undefined) return
  try {
    await chown(path, access.uid ?? -1, access.gid ?? -1)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new NotConfiguredError(
      `cannot give the file of compose secret ${secret} to uid ${access.uid ?? '-'} gid ${access.gid ?? '-'} (${code}): docker-compose v1 mounts it as it is`,
      {
        hint: 'run vault as root, use docker compose v2, or drop uid/gid (the default mode 0444 lets every user of the container read it)',
      },
    )
  }
}
