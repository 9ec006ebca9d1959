import * as Flags from '@oclif/core/flags'
import { adminConnection, adminStoreFlags, BaseCommand } from '../../cli/base-command.js'
import { adminRotateEncryptionKey } from '../../server/admin.js'

export interface ServerRotateKeyResult {
  fingerprint: string
}

export default class ServerRotateKey extends BaseCommand<typeof ServerRotateKey> {
  static override summary = 'rotate ENCRYPTION_KEY: re-wrap the root key under a new key'
  static override description =
    'ENCRYPTION_KEY (the current key) unlocks the root key, which is re-wrapped under NEW_ENCRYPTION_KEY in one ' +
    'transaction. Secret data is not rewritten, and running servers keep serving (they hold the root key); ' +
    'start servers with the new key from now on.'
  static override examples = [
    'ENCRYPTION_KEY=$OLD NEW_ENCRYPTION_KEY=$NEW <%= config.bin %> <%= command.id %>',
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...adminStoreFlags,
    'new-encryption-key': Flags.string({
      env: 'NEW_ENCRYPTION_KEY',
      required: true,
      summary: 'the new key (64 hex); prefer the environment variable',
    }),
  }

  async run(): Promise<ServerRotateKeyResult> {
    const { flags } = this
    const result = await adminRotateEncryptionKey(adminConnection(flags), flags['new-encryption-key'])
    if (!this.jsonEnabled())
      this.note(`root key re-wrapped; the database now expects key fingerprint ${result.fingerprint}`)
    return result
  }
}
