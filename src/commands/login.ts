import { BaseCommand, connectionFlags } from '../base-command.js'
import { login, type LoginResult } from '../client/login.js'
import { resolveConnectionSettings } from '../client/connect.js'
import { fields } from '../ui/terminal-text.js'

export default class Login extends BaseCommand<typeof Login> {
  static override summary = 'exchange the machine identity for an access token and cache it'
  static override description =
    "Reads VAULT_CLIENT_ID and VAULT_CLIENT_SECRET from the environment or the stack's .env. The token " +
    'is cached per (domain, client id) in the OS keychain when one is reachable, else in a mode-600 ' +
    'file under $XDG_STATE_HOME/vault (VAULT_KEYCHAIN=off forces the file).'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: "log in with the stack's .env" },
    { command: '<%= config.bin %> <%= command.id %> --stack-dir ~/stack --json', description: 'as JSON' },
  ]
  static override enableJsonFlag = true
  static override flags = { ...connectionFlags }

  async run(): Promise<LoginResult> {
    const settings = await resolveConnectionSettings(this.flags, (line) => this.note(line))
    const result = await login(settings)
    if (!this.jsonEnabled()) {
      this.note(
        fields`logged in to ${result.domain} as ${result.identity} (project ${result.project}); ` +
          fields`token cached in the ${result.store} until ${result.expiresAt}`,
      )
    }
    return result
  }
}
