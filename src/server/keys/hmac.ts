/**
 * HMAC-SHA256 under server keys held as Buffers. Each key is turned into a KeyObject once (per Buffer),
 * because preparing a raw Buffer key on every call costs several times the hash of a short message.
 */
import { createHmac, createSecretKey, type Hmac, type KeyObject } from 'node:crypto'

const keyObjects = new WeakMap<Buffer, KeyObject>()

/** A fresh HMAC-SHA256 under `key`. */
export function hmacSha256(key: Buffer): Hmac {
  let object = keyObjects.get(key)
  if (object === undefined) {
    object = createSecretKey(key)
    keyObjects.set(key, object)
  }
  return createHmac('sha256', object)
}
