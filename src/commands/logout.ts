import { BaseCommand, connectionFlags } from '../base-command.js'
import { logout, type LogoutResult } from '../client/login.js'
import { resolveSettings } from '../client/settings.js'

export default class Logout extends BaseCommand<typeof Logout> {
  static override summary = 'revoke and forget the cached access token'
  static override description =
    'Revokes the token on the server (best effort) and removes it from the keychain or file.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'forget the token' },
  ]
  static override enableJsonFlag = true
  static override flags = { ...connectionFlags }

  async run(): Promise<LogoutResult> {
    const { settings } = await resolveSettings(this.flags)
    const result = await logout(settings)
    if (!this.jsonEnabled()) {
      this.note(result.removed ? `logged out of ${result.domain}` : `no cached token for ${result.domain}`)
    }
    return result
  }
}
