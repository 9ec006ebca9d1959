import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags } from '../cli/base-command.js'
import { logout, type LogoutResult } from '../client/login.js'
import { resolveSettings } from '../client/settings.js'
import type { OfflineCopiesResult } from '../delivery/fallback-cleanup.js'

export default class Logout extends BaseCommand<typeof Logout> {
  static override summary = 'revoke and forget the cached access token'
  static override description =
    'Revokes the token on the server (best effort) and removes it from the keychain or file. When ' +
    '--fallback kept offline copies of this project, it asks whether to delete them (in a terminal), or ' +
    'follows --delete-fallback / --no-delete-fallback.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'forget the token' },
    { command: '<%= config.bin %> <%= command.id %> --user alice', description: 'sign a human out' },
    {
      command: '<%= config.bin %> <%= command.id %> --delete-fallback',
      description: 'also delete the offline copies, without asking',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...connectionFlags,
    user: Flags.string({
      summary: 'sign this human out (ends its session on the server)',
      env: 'VAULT_USER',
    }),
    'delete-fallback': Flags.boolean({
      summary: 'delete the offline copies kept by --fallback (--no-delete-fallback keeps them)',
      allowNo: true,
    }),
  }

  async run(): Promise<LogoutResult & { offlineCopies: OfflineCopiesResult }> {
    const { settings } = await resolveSettings(this.flags)
    const result = await logout({ ...settings, user: this.flags.user ?? settings.user })
    const { forgetOfflineCopies } = await import('../delivery/fallback-cleanup.js')
    const offlineCopies = await forgetOfflineCopies({
      domain: settings.domain ?? '',
      project: settings.projectId ?? '',
      choice: this.flags['delete-fallback'],
      interactive: !this.jsonEnabled() && Boolean(process.stdin.isTTY && process.stderr.isTTY),
    })
    if (!this.jsonEnabled()) {
      this.note(result.removed ? `logged out of ${result.domain}` : `no cached token for ${result.domain}`)
      const count = offlineCopies.environments.length
      if (count > 0) {
        this.note(
          offlineCopies.deleted
            ? `deleted ${count} offline ${count === 1 ? 'copy' : 'copies'}`
            : `kept ${count} offline ${count === 1 ? 'copy' : 'copies'}; vault logout --delete-fallback deletes them`,
        )
      }
    }
    return { ...result, offlineCopies }
  }
}
