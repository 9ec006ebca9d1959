import * as Flags from '@oclif/core/flags'
import { BaseCommand, connectionFlags } from '../cli/base-command.js'
import { login, loginHuman, type HumanLoginResult, type LoginResult } from '../client/login.js'
import { resolveConnectionSettings } from '../client/connect.js'
import { UsageError } from '../errors.js'
import { fields } from '../text/terminal-text.js'

export default class Login extends BaseCommand<typeof Login> {
  static override summary =
    'exchange the machine identity (or a human password) for an access token and cache it'
  static override description =
    "Reads VAULT_CLIENT_ID and VAULT_CLIENT_SECRET from the environment or the stack's .env. The token " +
    'is cached per (domain, client id) in the OS keychain when one is reachable, else in a mode-600 ' +
    'file under $XDG_STATE_HOME/vault (VAULT_KEYCHAIN=off forces the file). With --user NAME a human ' +
    'signs in instead (password from a hidden prompt, or --password-stdin); the token is cached per ' +
    '(domain, user) and used by the other commands when VAULT_USER=NAME is set (with --project or ' +
    'VAULT_PROJECT_ID naming the project). It ends after 12 hours, 30 minutes without use, vault logout, ' +
    'or a password change. The password goes only to a vault you name with --domain or VAULT_DOMAIN in ' +
    "the environment, never to one only the stack's .vault/credentials or .env names (exit 2)."
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: "log in with the stack's .env" },
    { command: '<%= config.bin %> <%= command.id %> --stack-dir ~/stack --json', description: 'as JSON' },
    {
      command: '<%= config.bin %> <%= command.id %> --user alice --domain https://vault.example.com',
      description: 'sign a human in (hidden password prompt)',
    },
    {
      command:
        'printf %s "$PASSWORD" | <%= config.bin %> <%= command.id %> --user alice --password-stdin --json',
      description: 'from a script',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    ...connectionFlags,
    user: Flags.string({
      summary: 'sign in as this human account (admin or member) instead of the machine identity',
    }),
    'password-stdin': Flags.boolean({
      summary: 'with --user: read the password from stdin',
      dependsOn: ['user'],
    }),
  }

  async run(): Promise<LoginResult | HumanLoginResult> {
    const settings = await resolveConnectionSettings(this.flags, (line) => this.note(line))
    if (this.flags.user !== undefined) return this.signIn({ ...settings, user: this.flags.user })
    const result = await login(settings)
    if (!this.jsonEnabled()) {
      this.note(
        fields`logged in to ${result.domain} as ${result.identity} (project ${result.project}); ` +
          fields`token cached in the ${result.store} until ${result.expiresAt}`,
      )
    }
    return result
  }

  private async signIn(settings: Parameters<typeof loginHuman>[0]): Promise<HumanLoginResult> {
    const result = await loginHuman(settings, () => this.readPassword(settings.user!, settings.domain))
    if (!this.jsonEnabled()) {
      this.note(
        fields`signed in to ${result.domain} as ${result.user} (${result.role}); token cached in the ` +
          fields`${result.store} until ${result.expiresAt} at the latest; use it with VAULT_USER=${result.user}`,
      )
    }
    return result
  }

  private async readPassword(user: string, domain = ''): Promise<string> {
    const { readPipedValue } = await import('../cli/read-secret.js')
    if (this.flags['password-stdin']) return readPipedValue()
    if (!process.stdin.isTTY)
      throw new UsageError('no password: not on a terminal and no --password-stdin', {
        hint: 'printf %s "$PASSWORD" | vault login --user NAME --password-stdin',
      })
    const { password } = await import('@inquirer/prompts')
    const message = fields`password of ${user} at ${domain}`
    const value = await password({ message, mask: true }, { output: process.stderr })
    if (value === '') throw new UsageError('no password entered')
    return value
  }
}
